"""The D20 Power/Reach rule system: weapons by Reach and Power, grenades, mines and charges
(``d20-weapons-and-equipment.txt``), with the figurine profile of RULINGS §3.

A shot totals Shot + Power + 1D20 (a blow HtH + Power + 1D20) and wounds when greater than
the target's defence; explosions roll Power + 1D20 against each figurine and object in their
radius.
"""
