"""Exact numbers from outside (forms, JSON, imports), bounded before any work is done.

The format every size, count and distance the engine takes is written in (see
``docs/rulings.md``, "Numbers"):

* a whole number, a decimal (``2.5``, ``0.25``, ``1e2``) or a fraction ``a/b`` (``1/3``);
* at most ``MAX_TEXT`` characters, an exponent of at most two digits;
* at most ``MAX_MAGNITUDE`` either way;
* in lowest terms, a denominator of at most ``MAX_DENOMINATOR``: steps of 1/100 (two decimal
  places), and thirds, eighths and the like.

Anything else is refused with ``InvalidInput`` naming the field, after a few microseconds of
checks on the text: nothing ever builds a number from a long or huge input.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction

from app.rules.errors import InvalidInput

MAX_TEXT = 20
MAX_MAGNITUDE = 10**9
MAX_DENOMINATOR = 100
MAX_DECIMAL_PLACES = 64
"""``number_text`` writes a decimal with at most this many places, else ``a/b``."""

_NUMBER = re.compile(
    r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?|[+-]?[0-9]+/[0-9]+",
    re.ASCII,
)
_LONG_EXPONENT = re.compile(r"[+-]?[0-9.]+[eE][+-]?[0-9]+", re.ASCII)
NOT_A_NUMBER = "must be a number"
TOO_PRECISE = (
    f"is too precise: use at most 2 decimal places, or a fraction a/b with b up to "
    f"{MAX_DENOMINATOR} (like 1/3)"
)
TOO_LARGE = f"must be between -{MAX_MAGNITUDE} and {MAX_MAGNITUDE}"


def exact_number(value: object, field_name: str) -> Fraction:
    """An exact number in the documented format, or ``InvalidInput(field_name, ...)``.

    Floats go through ``repr``, so ``1.5`` is exactly 3/2 and ``0.1`` is 1/10. Booleans are
    not numbers. ``Fraction`` values are the engine's own and pass unchanged.

    >>> exact_number("2.5", "size"), exact_number("1/3", "size"), exact_number(4, "size")
    (Fraction(5, 2), Fraction(1, 3), Fraction(4, 1))
    >>> exact_number("1e-100000", "size")
    Traceback (most recent call last):
    ...
    app.rules.errors.InvalidInput: size: has too large an exponent (at most 2 digits)
    >>> exact_number("0.001", "size")
    Traceback (most recent call last):
    ...
    app.rules.errors.InvalidInput: size: is too precise: use at most 2 decimal places, \
or a fraction a/b with b up to 100 (like 1/3)
    """
    if isinstance(value, bool) or value is None:
        raise InvalidInput(field_name, NOT_A_NUMBER)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
            raise InvalidInput(field_name, TOO_LARGE)
        return Fraction(value)
    text = _number_text(value, field_name)
    if len(text) > MAX_TEXT:
        raise InvalidInput(field_name, f"must be a number of at most {MAX_TEXT} characters")
    if _NUMBER.fullmatch(text) is None:
        if _LONG_EXPONENT.fullmatch(text) is not None:
            raise InvalidInput(field_name, "has too large an exponent (at most 2 digits)")
        raise InvalidInput(field_name, NOT_A_NUMBER)
    try:
        number = Fraction(text)  # cheap now: at most 20 digits and 10**99
    except ZeroDivisionError:
        raise InvalidInput(field_name, NOT_A_NUMBER) from None
    if not -MAX_MAGNITUDE <= number <= MAX_MAGNITUDE:
        raise InvalidInput(field_name, TOO_LARGE)
    if number.denominator > MAX_DENOMINATOR:
        raise InvalidInput(field_name, TOO_PRECISE)
    return number


def _number_text(value: object, field_name: str) -> str:
    """A float, a ``Decimal`` or text as the text ``exact_number`` reads (a float's ``repr``:
    the number as written)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(field_name, NOT_A_NUMBER)
        if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
            raise InvalidInput(field_name, TOO_LARGE)
        return repr(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidInput(field_name, NOT_A_NUMBER)
        return str(value)
    if isinstance(value, str):
        return value.strip()
    raise InvalidInput(field_name, NOT_A_NUMBER)


def _factor_count(n: int, prime: int) -> tuple[int, int]:
    """``(k, n / prime**k)`` for the largest k; O(log k) big-int divisions."""
    if prime == 2:
        k = (n & -n).bit_length() - 1
        return k, n >> k
    k = 0
    powers = [prime]
    while n % (powers[-1] * powers[-1]) == 0:
        powers.append(powers[-1] * powers[-1])
    for i in range(len(powers) - 1, -1, -1):
        if n % powers[i] == 0:
            n //= powers[i]
            k += 1 << i
    return k, n


def number_text(number: Fraction | int) -> int | str:
    """An int when whole; else an exact decimal string ("1.5"), or "a/b" (also when a
    decimal would need more than ``MAX_DECIMAL_PLACES`` places). Never loops over digits.

    >>> number_text(Fraction(3, 2)), number_text(Fraction(1, 3)), number_text(-Fraction(1, 8))
    ('1.5', '1/3', '-0.125')
    >>> number_text(Fraction(1, 10**70)) == "1/1" + "0" * 70
    True
    """
    number = Fraction(number)
    if number.denominator == 1:
        return int(number)
    twos, rest = _factor_count(number.denominator, 2)
    fives, rest = _factor_count(rest, 5)
    places = max(twos, fives)
    if rest != 1 or places > MAX_DECIMAL_PLACES:
        return f"{number.numerator}/{number.denominator}"
    scaled = abs(number.numerator) * (10**places // number.denominator)
    whole, frac = divmod(scaled, 10**places)
    sign = "-" if number < 0 else ""
    return f"{sign}{whole}.{frac:0{places}d}"


def one_decimal(number: Fraction | int) -> str:
    """A number as pages show it: at most one decimal, halves rounded up.

    >>> one_decimal(4), one_decimal(Fraction(9, 2)), one_decimal(Fraction(1, 3))
    ('4', '4.5', '0.3')
    """
    number = Fraction(number)
    if number.denominator == 1:
        return str(int(number))
    tenths = math.floor(abs(number) * 10 + Fraction(1, 2))
    sign = "-" if number < 0 and tenths else ""
    whole, tenth = divmod(tenths, 10)
    return f"{sign}{whole}" if tenth == 0 else f"{sign}{whole}.{tenth}"
