"""The D20 Power/Reach rule system: weapons by Reach and Power, grenades, mines and charges
(``d20-weapons-and-equipment.txt``), with the figurine profile of RULINGS §3.

A shot totals Shot + Power + 1D20 (a blow HtH + Power + 1D20) and wounds when greater than
the target's defence (PD + Evasion); explosions roll Power + 1D20 against the PD alone of
each figurine in their radius, and against each object.
"""
