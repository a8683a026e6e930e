"""Issue 29 item 7: the calculator asks only the situation fields that apply to the weapons
fired and the mode chosen (each field's ``when``), and a gas gun's pump left empty is the AP
that reach the range within the unit's AP, the page saying why."""

from __future__ import annotations

import html
import re
from typing import Any

from fastapi.testclient import TestClient

from tests.web.calculator.test_degrees_calculator import _army
from tests.web.conftest import Member

OPEN = "/calculator/open"
NAME = re.compile(r'<(?:input|select)[^>]*?name="([^"]+)"')


def _situation(page: str) -> set[str]:
    """The names the open calculator's situation fieldset asks."""
    part = page.split('<fieldset class="situation">', 1)[1].split("</fieldset>", 1)[0]
    return set(NAME.findall(part))


def _degrees(weapons: list[dict[str, str]], ap: int = 3, **situation: str) -> str:
    pairs = ["rules=degrees", "a.name=Soldier", "a.kind=personnel", "a.degree=2", f"a.ap={ap}"]
    for i, weapon in enumerate(weapons):
        pairs += [f"a.weapons.{i}.{k}={v}" for k, v in weapon.items()]
    pairs += ["t.name=Trooper", "t.kind=personnel", "t.degree=3"]
    pairs += [f"weapons={i + 1}" for i in range(len(weapons))]
    pairs += [f"{k}={v}" for k, v in situation.items()]
    return f"{OPEN}?" + "&".join(pairs)


EVERY_WEAPON = {"bloom", "extend", "op", "shots", "carried", "dampened", "ap"}
# written from the text (9.5, 9.6), not read off the fields: what each type's attack reads
DEGREES_ASKS: list[tuple[str, set[str]]] = [
    ("rifle", {"range", "set_degree", "penetrate", "stay_hidden", "visibility"}),
    ("gas_gun", {"range", "penetrate", "pump", "compress_op"}),  # its degree is its pumping
    ("katana", {"set_degree", "penetrate"}),  # a blade reads no range
    ("punch_gun", {"range", "medium", "set_degree", "penetrate"}),
    ("stun_gun", {"set_degree", "penetrate", "break_free"}),
    ("p_gun", {"set_degree", "drawn"}),  # inverted: no back line to choose
    ("grenade", {"set_degree", "penetrate"}),
]


def test_each_degrees_weapon_asks_only_its_fields(client: TestClient) -> None:
    for weapon, own in DEGREES_ASKS:
        page = client.get(_degrees([{"type": weapon, "degree": "2"}], ap=6))
        assert page.status_code in (200, 422), (weapon, page.text[-1500:])
        assert _situation(page.text) == EVERY_WEAPON | own, weapon
    # a rifleman: 12 fields; a gas gunner: 11, the pump among them; the first view: 17+
    rifle = _situation(client.get(_degrees([{"type": "rifle", "degree": "3"}])).text)
    gas = _situation(client.get(_degrees([{"type": "gas_gun", "degree": "2"}])).text)
    assert (len(rifle), len(gas)) == (12, 11) and "pump" in gas and "pump" not in rifle


def test_degrees_fields_that_a_switch_opens(client: TestClient) -> None:
    inter = [{"type": "inter_offer", "degree": "3"}]
    assert "revealed" not in _situation(client.get(_degrees(inter)).text)
    assert "revealed" in _situation(client.get(_degrees(inter, range="very_far")).text)
    assert "environment" in _situation(client.get(_degrees(inter, bloom="3")).text)
    gamma = [{"type": "gamma_gun", "degree": "5"}]
    assert "stun_bloom" not in _situation(client.get(_degrees(gamma)).text)
    assert "stun_bloom" in _situation(client.get(_degrees(gamma, set_degree="2")).text)
    both = _situation(client.get(_degrees([*inter, {"type": "gas_gun", "degree": "2"}])).text)
    assert {"pump", "set_degree"} <= both  # each weapon's own fields, together


def test_d20_asks_by_the_mode(client: TestClient) -> None:
    base = f"{OPEN}?rules=d20"
    assert _situation(client.get(base).text) == {"mode", "distance", "modifier", "shaken"}
    blow = _situation(client.get(f"{base}&mode=blow").text)
    assert blow == {"mode", "modifier", "shaken"}  # a blow is struck in base contact
    defuse = _situation(client.get(f"{base}&mode=defuse").text)
    assert defuse == {"mode", "dl"}


def test_d20_asks_a_distance_of_a_gun_or_a_grenade_not_of_a_mine_or_charge(
    client: TestClient,
) -> None:
    # "Reach" is a gun's and a thrown grenade's; a mine or a charge goes off where it lies
    def asks(weapon: str, mode: str) -> set[str]:
        gun = "&a.weapons.0.name=Rifle&a.weapons.0.reach=60&a.weapons.0.power=6"
        query = (
            f"{OPEN}?rules=d20&a.name=Sapper&a.kind=su&a.weapons.0.type={weapon}"
            + (gun if weapon == "gun" else "")
            + f"&t.name=Chronos&t.kind=figurine&weapons=1&mode={mode}"
        )
        return _situation(client.get(query).text)

    assert "distance" in asks("gun", "shot")
    assert "distance" in asks("defensive_grenade", "explosion")
    assert "distance" not in asks("hypersensor_mine", "explosion")
    assert "distance" not in asks("hurricane_charge", "explosion")


BRIKWARS_EVERY = {
    "distance",
    "height",
    "visible_sections",
    "visible_size",
    "small",
    "gunnery_support",
    "homing_in",
    "firing_blind",
    "outnumbered",
    "gunner",
    "combined",
    "divert_turns",
    "teamwork",
    "bonus_die",  # the house rule, asked beside the situation
}


def _brikwars(weapon: str) -> str:
    return (
        f"{OPEN}?rules=brikwars&a.name=Olaf&a.kind=minifig&a.weapons.0.type={weapon}"
        "&t.name=Hero&t.kind=hero&weapons=1"
    )


def test_brikwars_asks_by_the_weapons(client: TestClient) -> None:
    asks = {w: _situation(client.get(_brikwars(w)).text) for w in ("gun", "hand_weapon")}
    assert asks["gun"] == BRIKWARS_EVERY  # no Charge with a gun, no Arc or Burst
    assert asks["hand_weapon"] == BRIKWARS_EVERY | {"charge"}
    tank = (
        f"{OPEN}?rules=brikwars&a.name=Tank&a.kind=creation&a.size=4&a.structure_level=2"
        "&a.weapons.0.type=machinegun&a.weapons.0.size=2&t.name=Hero&t.kind=hero&weapons=1"
    )
    machinegun = _situation(client.get(tank).text)
    assert machinegun == BRIKWARS_EVERY | {"arc", "burst"}
    # a field set by the query is asked (and kept) though no weapon fired applies to it
    assert "charge" in _situation(client.get(_brikwars("gun") + "&charge=1").text)


def test_a_gas_gunners_first_view_pumps_what_reaches_the_range(client: TestClient) -> None:
    gas = [{"type": "gas_gun", "degree": "2"}]
    page = client.get(_degrees(gas))  # 3 AP, Close: needs 2°
    text = html.unescape(page.text)
    assert page.status_code == 200, text[-2000:]
    assert "cannot reach" not in text and "This attack cannot be made" not in text
    notes = re.findall(r'<li data-name="gas_pump">([^<]*)</li>', text)
    assert notes == ["Gas gun 2-max: pumped 2 AP to reach Close (needs 2°) within 3 AP."]
    assert 'data-name="ap_needed">3 AP of 3<' in text
    far = html.unescape(client.get(_degrees(gas, ap=4, range="far")).text)
    assert "pumped 3 AP to reach Far (needs 3°) within 4 AP" in far  # over its max: it rolls
    assert 'data-name="gun_max"' in far


def test_a_gas_gun_that_cannot_reach_within_its_ap_says_how_far_it_reaches(
    client: TestClient,
) -> None:
    gas = [{"type": "gas_gun", "degree": "2"}]
    text = html.unescape(client.get(_degrees(gas, range="very_far")).text)
    assert (
        "Gas gun 2-max pumped to 2° cannot reach Very Far (needs 4°). "
        "Within its AP it is pumped to 2°: it reaches Close." in text
    )
    assert "needs 5 AP" not in text  # what does not fit is not pumped
    one = html.unescape(client.get(_degrees(gas, ap=1, range="close")).text)
    assert "Within its AP it is pumped to 0°: it reaches no range." in one
    # carried AP count: 2 carried reach Close with no pumping
    carried = html.unescape(client.get(_degrees(gas, carried="2")).text)
    assert "not pumped: the 2 AP carried in reach Close (needs 2°)" in carried


def test_a_pump_typed_is_the_pump(client: TestClient) -> None:
    text = html.unescape(client.get(_degrees([{"type": "gas_gun", "degree": "2"}], pump="0")).text)
    assert "Gas gun 2-max pumped to 0° cannot reach Close (needs 2°)." in text
    assert "Within its AP" not in text and 'data-name="gas_pump"' not in text


def test_the_saved_calculator_asks_by_the_weapons_ticked(app: Any, member: Member) -> None:
    units = _army(app, member)
    gunner, weapons = units["Gunner"]
    simo, rifles = units["Simo"]
    target, _ = units["Trooper"]

    def asked(query: str) -> set[str]:
        page = member.client.get(f"/calculator?{query}")
        assert page.status_code in (200, 422), page.text[-1500:]
        part = page.text.split('<div id="situation-fields" class="form-fields">', 1)[1]
        part = part.split('<details class="more further-targets"', 1)[0]
        return set(NAME.findall(part))

    gas = asked(f"attacker={gunner}&target={target}&weapons={weapons[0]}")
    rifle = asked(f"attacker={simo}&target={target}&weapons={rifles[0]}")
    assert "pump" in gas and "set_degree" not in gas
    assert "pump" not in rifle and {"set_degree", "stay_hidden"} <= rifle
    page = html.unescape(
        member.client.get(
            f"/calculator?attacker={gunner}&target={target}&weapons={weapons[0]}"
        ).text
    )
    assert "pumped 2 AP to reach Close (needs 2°) within 4 AP" in page
