"""The Degrees rule system: chapter 9 (Weapons) of a d10 roll-under game, with RULINGS §2.

A roll against degree D succeeds on a natural d10 of D or less and deals damage equal to the
natural roll: front Armour first, then the back line (back-line Armour, then HP). Weapons have
degrees on three scales; units and costs come from RULINGS §2.
"""
