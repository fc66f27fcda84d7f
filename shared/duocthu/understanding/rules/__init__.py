"""The offline understanding provider: the frame built deterministically from the cue tables, without a
model. `provider.offline_frame` runs these stages in order, each a function of one module here.

Reading the turn (each stage adds to the `reading.Reading`):

1. `reading.read_turn`: the cues, the patient's facts and the clauses; every exact catalogue hit named.
2. `attribute.asked_section`: the section the words name, else what "có làm … không" asks.
3. `names.unknown_products`: product names the catalogue does not know, less ingredients named in a product.
4. `complaints.read_complaints`: the complaint told, apart from history and organ function.
5. `names.set_aside_the_patients`: the patient's own medicines and allergens set aside as context.
6. `decision.reactions_told`: a name the catalogue lacks, told as a past reaction's cause, is a fact.
7. `attribute.section_of_drug`: what is asked of the drug: a cue's section, a decision, its indications.
8. `attribute.reaction_section`: a reaction told on the drug: its adverse reactions or their management.
9. `decision.patient_decision`: whether this patient may take the one drug asked, one ask.

Framing it (the first stage that frames the turn decides it):

10. `turn_type.off_topic`: smalltalk, or a topic no section covers.
11. `together.taken_together`: the drug with the patient's medicines; one drug of a pair swapped.
12. `clarify.patient_told`: a patient described, the question still to come.
13. `turn_type.named_drug_frame`: catalogue drugs named: a section, overview, interaction or dose.
14. `turn_type.continued_frame`: no drug named, going on about the conversation's drugs.
15. `turn_type.unknown_product_frame`: only unknown products named; a misspelt name asked back.
16. `follow_up.relation_kept`: the relation asked before, of another condition or population.
17. `direction.condition_to_drugs`: which drugs for the condition asked about.
18. `follow_up.prior_condition`: a bare which-drug question about the condition told before.
19. `clarify.ask_for_drug`: a question of no drug: which drug.
20. `clarify.described_patient`: a patient described without a question: what to look up.
21. `turn_type.out_of_scope`: anything else.
"""
