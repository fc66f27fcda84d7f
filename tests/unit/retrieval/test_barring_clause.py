"""The clause that bars a drug for a patient's own numbers (`retrieval.barring.barring_clause`):
a clause about starting the drug bars starting it, not going on with it."""

from __future__ import annotations

from duocthu.models.frame import PatientContext
from duocthu.retrieval.barring import barring_clause
from duocthu.retrieval.facets import PatientProfile

STARTING = "Tăng kali huyết (kali huyết thanh trên 5,0 mmol/l khi bắt đầu điều trị) hoặc các tình trạng khác"


def test_a_clause_about_starting_the_drug_bars_only_starting_it() -> None:
    patient = PatientProfile(PatientContext(labs=("K+ 5,7",)), None, None, None)
    assert barring_clause(STARTING, patient) is not None
    assert barring_clause(STARTING, patient, taking=True) is None
    # a band the patient is outside bars nothing either way
    assert (
        barring_clause(STARTING, PatientProfile(PatientContext(labs=("K+ 4,2",)), None, None, None)) is None
    )
