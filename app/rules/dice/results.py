"""Exact distributions the dice core returns (float64, with the dropped mass stated).

Probabilities are float64 sums of products of exact die probabilities. ``truncation_bound``
(< 1e-9) bounds the total-variation distance to the true distribution: the Bonus-chain mass
left out plus tail mass that may sit at the wrong total (see ``exact``). So every probability,
and every probability of an event (P(damage > armour)...), is within ``truncation_bound`` of
the true one (plus float rounding, ~1e-14), and the masses sum to ``1 - dropped`` with
``dropped <= truncation_bound``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


def _frozen(a: FloatArray) -> FloatArray:
    a = np.ascontiguousarray(a, dtype=np.float64)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False, slots=True)
class TotalDistribution:
    """Distribution of a roll's total: ``pmf[t] = P(total == t)``, totals floored at 0.

    ``all_ones`` is P(every die of the roll shows a natural 1) (a BrikWars Damage Roll's
    Critical Failure); that mass is included in ``pmf`` at ``all_ones_total``.

    >>> d = TotalDistribution.fixed(4)
    >>> d.probability(4), d.all_ones
    (1.0, 0.0)
    """

    pmf: FloatArray
    all_ones: float
    all_ones_total: int
    truncation_bound: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "pmf", _frozen(self.pmf))

    @classmethod
    def fixed(cls, value: int) -> TotalDistribution:
        """A constant total (e.g. a minifig's Armour 4): no dice, so never all ones."""
        pmf = np.zeros(max(0, value) + 1)
        pmf[-1] = 1.0
        return cls(pmf, 0.0, max(0, value), 0.0)

    @property
    def max_total(self) -> int:
        """Largest total kept (larger ones are inside the truncated mass)."""
        return len(self.pmf) - 1

    def probability(self, total: int) -> float:
        """P(total == ``total``)."""
        return float(self.pmf[total]) if 0 <= total < len(self.pmf) else 0.0

    def excluding_all_ones(self) -> FloatArray:
        """``pmf`` without the all-ones event: P(total == t and not a Critical Failure)."""
        out = np.array(self.pmf)
        if self.all_ones:
            out[self.all_ones_total] = max(0.0, out[self.all_ones_total] - self.all_ones)
        return out

    def mean(self) -> float:
        """Expected total (over the kept mass)."""
        return float(np.dot(np.arange(len(self.pmf)), self.pmf))

    def mass(self) -> float:
        """Total kept probability, ``1 - dropped``."""
        return float(self.pmf.sum())


@dataclass(frozen=True, eq=False, slots=True)
class JointDistribution:
    """Joint distribution of (total, dice count): ``pmf[t, c] = P(total == t, dice == c)``.

    The dice count includes Bonus dice (KnockBack: 1" per die left in the ring). The all-ones
    event (a Critical Failure, no effect at all) is included at
    ``(all_ones_total, all_ones_dice)`` with probability ``all_ones``.

    >>> import numpy as np
    >>> j = JointDistribution(np.array([[0.0, 0.5], [0.0, 0.5]]), 0.5, 1, 1, 0.0)
    >>> j.total().pmf.tolist(), j.dice().tolist(), j.excluding_all_ones().tolist()
    ([0.5, 0.5], [0.0, 1.0], [[0.0, 0.5], [0.0, 0.0]])
    """

    pmf: FloatArray
    all_ones: float
    all_ones_total: int
    all_ones_dice: int
    truncation_bound: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "pmf", _frozen(self.pmf))

    def total(self) -> TotalDistribution:
        """The total's marginal distribution."""
        return TotalDistribution(
            self.pmf.sum(axis=1), self.all_ones, self.all_ones_total, self.truncation_bound
        )

    def dice(self) -> FloatArray:
        """The dice count's marginal: ``dice()[c] = P(c dice left)``."""
        return _frozen(self.pmf.sum(axis=0))

    def excluding_all_ones(self) -> FloatArray:
        """``pmf`` without the all-ones event."""
        out = np.array(self.pmf)
        if self.all_ones:
            t, c = self.all_ones_total, self.all_ones_dice
            out[t, c] = max(0.0, out[t, c] - self.all_ones)
        return out


@dataclass(frozen=True, slots=True)
class Comparison:
    """P(damage > armour), P(=), P(<), with the Critical Failure reported on its own.

    ``greater + equal + less + critical_failure`` is 1 up to ``truncation_bound``. When the
    comparison was asked to keep criticals in, ``critical_failure`` is 0.
    """

    greater: float
    equal: float
    less: float
    critical_failure: float
    truncation_bound: float


@dataclass(frozen=True, eq=False, slots=True)
class ComparisonByDice:
    """A ring's damage against one Armour roll, split by the dice left in the ring.

    ``greater[c]`` = P(damage > armour and c dice left, no Critical Failure), likewise
    ``equal`` and ``less``; ``critical_failure`` is P(all ones): no damage, no KnockBack.
    """

    greater: FloatArray
    equal: FloatArray
    less: FloatArray
    critical_failure: float
    truncation_bound: float

    def __post_init__(self) -> None:
        for name in ("greater", "equal", "less"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def totals(self) -> Comparison:
        """The same comparison with the dice counts summed out."""
        return Comparison(
            float(self.greater.sum()),
            float(self.equal.sum()),
            float(self.less.sum()),
            self.critical_failure,
            self.truncation_bound,
        )
