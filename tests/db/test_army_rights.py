"""``army_and_rights`` (the builder's one-query check) decides as ``army_for`` does."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session

from app.db.models import User
from app.services import armies, clubs, sharing
from app.services.errors import Forbidden, NotFound
from app.services.permissions import Access, army_and_rights, army_for

_ids = itertools.count(1)


@pytest.fixture
def session(app) -> Iterator[Session]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        yield s
        s.rollback()


def _user(session: Session, name: str) -> User:
    user = User(email=f"rights{next(_ids)}@example.com", display_name=name, password_hash="x")
    session.add(user)
    session.flush()
    return user


def _verdict(session: Session, user: User, army_id: int, access: Access) -> str:
    try:
        army_for(session, user=user, army_id=army_id, access=access)
    except NotFound:
        return "not found"
    except Forbidden:
        return "forbidden"
    return "yes"


def test_every_viewer_gets_the_same_answer_both_ways(session: Session) -> None:
    owner, organiser, editor, reader, stranger = (
        _user(session, n) for n in ("owner", "organiser", "editor", "reader", "stranger")
    )
    club = clubs.create_club(session, user=owner, name="Rights Club")
    for member in (organiser, editor, reader):
        _, token = clubs.create_invite(session, user=owner, club_id=club.id)
        clubs.join(session, user=member, token=token)
    clubs.set_role(session, user=owner, club_id=club.id, member_id=organiser.id, role="organiser")
    shared = armies.create_army(session, user=owner, name="Shared", ruleset_id="brikwars", budget=9)
    private = armies.create_army(session, user=owner, name="Own", ruleset_id="brikwars", budget=9)
    sharing.share(session, user=owner, army_id=shared.id, club_id=club.id, editor_ids=[editor.id])
    session.flush()
    seen = set()
    for user in (owner, organiser, editor, reader, stranger):
        for army_id in (shared.id, private.id, 10**9):
            read = _verdict(session, user, army_id, Access.READ)
            edit = _verdict(session, user, army_id, Access.EDIT)
            try:
                _, can_edit = army_and_rights(session, user=user, army_id=army_id)
            except NotFound:
                assert read == "not found", (user.display_name, army_id)
                seen.add("not found")
                continue
            assert read == "yes", (user.display_name, army_id)
            assert can_edit == (edit == "yes"), (user.display_name, army_id)
            seen.add("edits" if can_edit else "reads")
    assert seen == {"not found", "edits", "reads"}
