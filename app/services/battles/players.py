"""Players: the host invites them (by a link, or a club member by name), each joins with one
of their own armies of the battle's ruleset as a side of their own, and the host may remove
them (their side stays, the host plays it).

An invitation link is shown once and only its SHA-256 is kept, works for a week and many
times (one side each player) until it is revoked, as a club's does; a dead one is NotFound
whatever killed it. A club member's invitation has no token: they accept or decline it from
their battles. A join is one log entry (``JOIN_KIND``), which Undo never undoes.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Select, delete, func, select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import (
    Army,
    Battle,
    BattleInvite,
    BattleSide,
    BattleUnit,
    ClubMember,
    User,
)
from app.rules.errors import InvalidInput
from app.rules.registry import get_ruleset
from app.services import live as live_streams
from app.services import quotas
from app.services.army_rows import load_rows_of
from app.services.battles.creating import MAX_UNITS, copy_units, side_names
from app.services.battles.log import (
    JOIN_KIND,
    REMOVE_KIND,
    append,
    bump,
    diceless_entry,
    lock,
    require_open,
)
from app.services.errors import NotFound
from app.services.permissions import battle_for
from app.services.tokens import digest, invite_expiry, is_live, live, new_token

MAX_SIDES = 16  # sides of one battle
MAX_INVITABLE = 200  # club members offered on the host's "invite a member" picker


@dataclass(frozen=True)
class Invitation:
    """A live invitation as its landing page or the invited member's list shows it: the
    battle, and who invited (``None`` when their account is gone)."""

    invite: BattleInvite
    battle: Battle
    inviter: str | None

    @property
    def ruleset_name(self) -> str:
        return get_ruleset(self.battle.ruleset_id).name


# ------------------------------------------------------------------------------ the host's


def create_invite(session: Session, *, user: User, battle_id: int) -> tuple[BattleInvite, str]:
    """An invitation link to the battle, valid for a week; the token is returned once."""
    battle = battle_for(session, user=user, battle_id=battle_id, host=True)
    quotas.battle_invitations(session, battle_id=battle.id)
    token, hashed = new_token()
    invite = BattleInvite(
        battle_id=battle.id, token_hash=hashed, created_by_id=user.id, expires_at=invite_expiry()
    )
    session.add(invite)
    session.flush()
    return invite, token


def open_invites(session: Session, *, user: User, battle_id: int) -> list[BattleInvite]:
    """The battle's live invitations, links and members' (the host's)."""
    battle = battle_for(session, user=user, battle_id=battle_id, host=True)
    return list(
        session.scalars(
            select(BattleInvite)
            .where(BattleInvite.battle_id == battle.id, *live(BattleInvite))
            .order_by(BattleInvite.id)
        )
    )


def revoke_invite(session: Session, *, user: User, battle_id: int, invite_id: int) -> None:
    """The invitation stops working at once."""
    battle = battle_for(session, user=user, battle_id=battle_id, host=True)
    invite = session.get(BattleInvite, invite_id)
    if invite is None or invite.battle_id != battle.id:
        raise NotFound("invitation")
    invite.revoked_at = utcnow()
    live_streams.access_changed(session, battle_id=battle.id)  # (who may watch: asked again)
    session.flush()


def _club_mates(user_id: int) -> Select[int]:
    """The ids of the users who share a club with the user."""
    clubs = select(ClubMember.club_id).where(ClubMember.user_id == user_id)
    return select(ClubMember.user_id).where(ClubMember.club_id.in_(clubs))


def invitable_members(session: Session, *, user: User, battle_id: int) -> list[tuple[int, str]]:
    """The members of the host's clubs they may invite: (user id, name), neither playing in
    the battle nor invited already."""
    battle = battle_for(session, user=user, battle_id=battle_id, host=True)
    playing = select(BattleSide.player_id).where(
        BattleSide.battle_id == battle.id, BattleSide.player_id.is_not(None)
    )
    invited = select(BattleInvite.invited_user_id).where(
        BattleInvite.battle_id == battle.id,
        BattleInvite.invited_user_id.is_not(None),
        *live(BattleInvite),
    )
    rows = session.execute(
        select(User.id, User.display_name)
        .where(
            User.id.in_(_club_mates(user.id)),
            User.id != user.id,
            User.id.not_in(playing),
            User.id.not_in(invited),
        )
        .order_by(User.display_name, User.id)
        .limit(MAX_INVITABLE)
    )
    return [(user_id, name) for user_id, name in rows]


def invite_member(session: Session, *, user: User, battle_id: int, member_id: int) -> BattleInvite:
    """Invite a member of a club the host belongs to (they accept from their battles); the
    host, a player or one invited already: a 422 naming ``user_id``."""
    battle = battle_for(session, user=user, battle_id=battle_id, host=True)
    if member_id == user.id or member_id not in set(session.scalars(_club_mates(user.id))):
        raise InvalidInput("user_id", "is not a member of a club of yours")
    if member_id not in {
        uid for uid, _ in invitable_members(session, user=user, battle_id=battle.id)
    }:
        raise InvalidInput("user_id", "plays a side already, or is invited already")
    quotas.battle_invitations(session, battle_id=battle.id)
    invite = BattleInvite(
        battle_id=battle.id,
        invited_user_id=member_id,
        created_by_id=user.id,
        expires_at=invite_expiry(),
    )
    session.add(invite)
    session.flush()
    return invite


def remove_player(session: Session, *, user: User, battle_id: int, side_id: int) -> BattleSide:
    """The side's player plays it no more (the host does); they no longer see the battle,
    unless they play another side of it."""
    battle = lock(session, user=user, battle_id=battle_id, host=True)
    side = session.get(BattleSide, side_id)
    if side is None or side.battle_id != battle.id:
        raise NotFound("side")
    if side.player_id is None:
        raise InvalidInput("side_id", f"the host plays “{side.name}” already")
    player = session.get(User, side.player_id)
    side.player_id = None
    live_streams.access_changed(session, battle_id=battle.id)  # their streams end, on every server
    # Logged (never undone: P3), so every page learns who plays the side now, live.
    who = player.display_name if player is not None else "the player"
    summary = f"{user.display_name} removes {who}: the host plays “{side.name}” now"
    entry = diceless_entry(battle, user, REMOVE_KIND, summary, {"side_id": side.id})
    append(session, battle, entry)
    session.flush()
    return side


# ------------------------------------------------------------------------------ the invited


def _invitation(session: Session, invite: BattleInvite | None) -> Invitation:
    if invite is None or not is_live(invite):
        raise NotFound("invitation")
    battle = session.get(Battle, invite.battle_id)
    assert battle is not None  # (an invitation goes with its battle)
    inviter = session.get(User, invite.created_by_id) if invite.created_by_id else None
    return Invitation(invite, battle, inviter.display_name if inviter is not None else None)


def invitation(session: Session, *, token: str) -> Invitation:
    """The battle and inviter of a live invitation link (unknown, expired or revoked:
    NotFound, alike, so a dead link tells nothing of the battle it was for)."""
    invite = session.scalar(select(BattleInvite).where(BattleInvite.token_hash == digest(token)))
    return _invitation(session, invite)


def member_invitation(session: Session, *, user: User, invite_id: int) -> Invitation:
    """A live invitation of the user's as a club member (anyone else's: NotFound)."""
    invite = session.get(BattleInvite, invite_id)
    if invite is None or invite.invited_user_id != user.id:
        raise NotFound("invitation")
    return _invitation(session, invite)


def my_invitations(session: Session, *, user: User) -> list[Invitation]:
    """The user's live invitations as a club member, oldest first."""
    invites = session.scalars(
        select(BattleInvite)
        .where(BattleInvite.invited_user_id == user.id, *live(BattleInvite))
        .order_by(BattleInvite.id)
    )
    return [_invitation(session, invite) for invite in invites]


def armies_to_join(session: Session, *, user: User, ruleset_id: str) -> list[Army]:
    """The armies the user may bring as their side: their own, of the battle's ruleset."""
    return list(
        session.scalars(
            select(Army)
            .where(Army.owner_id == user.id, Army.ruleset_id == ruleset_id)
            .order_by(Army.name, Army.id)
        )
    )


def plays_in(session: Session, *, user: User, battle: Battle) -> bool:
    """Whether the user hosts the battle or plays a side of it already."""
    if battle.owner_id == user.id:
        return True
    return (
        session.scalar(
            select(BattleSide.id)
            .where(BattleSide.battle_id == battle.id, BattleSide.player_id == user.id)
            .limit(1)
        )
        is not None
    )


def join_by_link(session: Session, *, user: User, token: str, army_id: int | None) -> BattleSide:
    """Join the battle of a live invitation link with one of the user's own armies."""
    found = invitation(session, token=token)
    return _join(session, user=user, battle=found.battle, army_id=army_id)


def accept_invite(
    session: Session, *, user: User, invite_id: int, army_id: int | None
) -> BattleSide:
    """Accept a club member's invitation with one of the user's own armies (it is used up)."""
    found = member_invitation(session, user=user, invite_id=invite_id)
    side = _join(session, user=user, battle=found.battle, army_id=army_id)
    session.delete(found.invite)
    session.flush()
    return side


def decline_invite(session: Session, *, user: User, invite_id: int) -> None:
    """Decline a club member's invitation: it is gone."""
    found = member_invitation(session, user=user, invite_id=invite_id)
    session.execute(delete(BattleInvite).where(BattleInvite.id == found.invite.id))


def _join(session: Session, *, user: User, battle: Battle, army_id: int | None) -> BattleSide:
    """The user's army joins the battle as a new side they play, its units copied in as a
    new battle's are; logged as a join. Refused with a 422 (nothing written): the host, a
    player already, an ended or full battle (``battle``), an army not the user's own of the
    battle's ruleset, or without units, or too many (``army_id``)."""
    if battle.owner_id == user.id:
        raise InvalidInput("battle", "you host this battle: every side is yours to play already")
    bump(session, battle)  # under the battle's lock, as every action
    if plays_in(session, user=user, battle=battle):
        raise InvalidInput("battle", "you play a side in this battle already")
    require_open(battle)
    ruleset = get_ruleset(battle.ruleset_id)
    army = session.get(Army, army_id) if army_id is not None else None
    if army is None or army.owner_id != user.id or army.ruleset_id != battle.ruleset_id:
        raise InvalidInput("army_id", f"choose one of your own {ruleset.name} armies")
    rows = load_rows_of(session, [army.id])[army.id]
    figures = sum(row.count for row in rows)
    if figures == 0:
        raise InvalidInput("army_id", f"“{army.name}” has no units yet")
    sides = list(
        session.scalars(
            select(BattleSide)
            .where(BattleSide.battle_id == battle.id)
            .order_by(BattleSide.position)
        )
    )
    if len(sides) >= MAX_SIDES:
        raise InvalidInput("battle", f"a battle has at most {MAX_SIDES} sides")
    count, last = session.execute(
        select(func.count(BattleUnit.id), func.max(BattleUnit.position)).where(
            BattleUnit.battle_id == battle.id
        )
    ).one()
    if count + figures > MAX_UNITS:
        raise InvalidInput(
            "army_id",
            f"a battle takes at most {MAX_UNITS} units: it has {count}, “{army.name}” {figures}",
        )
    name = side_names([army.name], [s.name for s in sides])[0]
    side = BattleSide(
        battle_id=battle.id,
        position=sides[-1].position + 1 if sides else 0,
        name=name,
        player_id=user.id,
        army_id=army.id,
    )
    session.add(side)
    session.flush()
    copy_units(session, battle, side, [(army, row) for row in rows], (last or 0) + 1)
    units = "1 unit" if figures == 1 else f"{figures} units"
    summary = f"{user.display_name} joins with {army.name} ({units}) as “{name}”"
    entry = diceless_entry(
        battle, user, JOIN_KIND, summary, {"side_id": side.id, "army_id": army.id}
    )
    append(session, battle, entry)
    session.flush()
    return side
