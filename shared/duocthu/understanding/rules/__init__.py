"""The offline understanding provider: the frame built deterministically from the cue tables, without a
model. `provider.offline_frame` runs these stages in order, each a function of one module here.

Reading the turn (each stage adds to the `reading.Reading`):

1. `reading.read_turn`: the cues, the patient's facts and the clauses; every exact catalogue hit named.
2. `attribute.asked_section`: the section the words name, else what "có làm … không" asks.
3. `names.unknown_products`: product names the catalogue does not know, less ingredients named in a product.
4. `complaints.read_complaints`: the complaint told, apart from history and organ function.
5. `names.set_aside_the_patients`: the patient's own medicines and allergens set aside as context.
6. `attribute.section_of_drug`: what is asked of the drug: a cue's section, a decision, its indications.
7. `attribute.reaction_section`: a reaction told on the drug: its adverse reactions or their management.

Framing it (the first stage that frames the turn decides it):

8. `turn_type.off_topic`: smalltalk, or a topic no section covers.
9. `together.taken_together`: the drug with the patient's medicines; one drug of a pair swapped.
10. `clarify.patient_told`: a patient described, the question still to come.
11. `turn_type.named_drug_frame`: catalogue drugs named: a section, overview, interaction or dose.
12. `turn_type.continued_frame`: no drug named, going on about the conversation's drugs.
13. `turn_type.unknown_product_frame`: only unknown products named; a misspelt name asked back.
14. `follow_up.relation_kept`: the relation asked before, of another condition or population.
15. `direction.condition_to_drugs`: which drugs for the condition asked about.
16. `follow_up.prior_condition`: a bare which-drug question about the condition told before.
17. `clarify.ask_for_drug`: a question of no drug: which drug.
18. `clarify.described_patient`: a patient described without a question: what to look up.
19. `turn_type.out_of_scope`: anything else.
"""
