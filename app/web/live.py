"""Live battles: each new log entry sent to every open page of the battle as it happens.

One ``Hub`` per server process (per event loop) keeps the open streams by battle. It hears
that a battle changed from ``app.services.live``: on PostgreSQL through a ``LISTEN``
connection of its own (psycopg, outside the request pool; every server hears every commit,
in commit order), on SQLite by reading the newest log number of the battles it streams every
``LIVE_POLL_SECONDS`` (the workers of one machine), and from its own process's commits at
once. It then loads the new entries once, in a short session closed at once, renders the
fragments they changed once per viewer role (``ROLES``: the log entry, the units it changed,
the battle's state and the log's actions) and hands them to every stream of that role. A
stream's events are numbered by the log's sequence numbers: one that reconnects names the
last it saw and is sent what it missed, in order, once.

A stream holds no database connection: it waits on its queue (a heartbeat comment every
``LIVE_HEARTBEAT_SECONDS``). Database reads and rendering run in the hub's own two threads,
never on the event loop, on a pool of the hub's own (``app.state.live_sessionmaker``: they
never wait for requests' connections nor make requests wait); a failed read is tried again
later, with backoff, and is never taken for lost access. Who may still watch is asked
again when someone's access changes (a log-out, a revoked link: ``a:``/``u:`` messages), on
SQLite at every poll, and at every heartbeat anyway; a stream that lost it is sent ``ended``
and closed (only a stream that was asked about: one opened meanwhile waits for the next).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.db.base import utcnow
from app.db.models import (
    ApiToken,
    Battle,
    BattleEntry,
    BattleSide,
    BattleUnit,
    User,
    UserSession,
)
from app.rules.registry import get_ruleset
from app.services import live, presence
from app.services.battles.views import BattleView, LogEntry, undo_target, unit_in_battle
from app.services.permissions import SPECTATOR, Viewer
from app.settings import Settings
from app.web.battle_schemas import entry_out, unit_out
from app.web.csrf import FIELD

log = logging.getLogger(__name__)

MAX_REPLAY = 200  # a stream further behind than this many entries is told to reload instead
CACHE_EVENTS = 64  # rendered events kept per battle, for streams that reconnect
QUEUE_EVENTS = 512  # events waiting for one slow stream; past it the stream is ended
RETRY_MS = 2000  # the browser's wait before it reopens a dropped stream
RETRY_AFTER = 10  # seconds, on the 503 past a bound
_CSRF_SLOT = "@@live-csrf-slot@@"
PAGE = "battles/detail.html"
UNDO_KIND, JOIN_KIND, REMOVE_KIND = "undo", "join", "remove"  # (as app.services.battles.log)


class StreamsBusy(Exception):
    """Past LIVE_STREAMS_PER_USER or LIVE_STREAMS_PER_PROCESS, or the database too busy to
    open one now: a 503 with Retry-After."""

    def __init__(self, what: str, reason: str | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.reason = reason or f"too many {what}: try again later"
        self.retry_after = RETRY_AFTER


# ------------------------------------------------------------------------------- roles


@dataclass(frozen=True)
class Role:
    """How a viewer role sees a battle: ``read_only`` pages have no forms; ``sees_secrets``
    decides, unit by unit, whether its state is shown whole or as ``public_state``;
    ``viewer``: whose forms it has (the host's: every side's; a player's: their own)."""

    key: str
    read_only: bool
    sees_secrets: Callable[[BattleUnit], bool]
    viewer: Viewer = SPECTATOR


def role_key(viewer: Viewer) -> str:
    """The role key of a viewer: "host", "spectator", or "side:<ids>" for a player (the ids of
    the sides they play, sorted: one user playing two sides sees both sides' secrets)."""
    if viewer.role == "player":
        return "side:" + ",".join(str(i) for i in sorted(viewer.side_ids))
    return viewer.role


def role(key: str) -> Role:
    """A role key as ``Grant.role`` has it: "host" (the battle's owner), "spectator" (the
    read-only link) or "side:<ids>" (a side's player: its own units' secrets and forms,
    nobody else's: ruling P5)."""
    if key == "host":
        return Role(key, read_only=False, sees_secrets=lambda _row: True, viewer=Viewer("host"))
    if key == "spectator":
        return Role(key, read_only=True, sees_secrets=lambda _row: False)
    if key.startswith("side:"):
        try:
            sides = frozenset(int(part) for part in key[5:].split(","))
        except ValueError:
            raise ValueError(f"no viewer role {key!r}") from None
        return Role(
            key,
            read_only=False,
            sees_secrets=lambda row: getattr(row, "side_id", None) in sides,
            viewer=Viewer("player", sides),
        )
    raise ValueError(f"no viewer role {key!r}")


@dataclass(frozen=True)
class Grant:
    """Who a stream is for and by what right (asked again whenever access may have changed):
    a login session or an API token of the user (``host``, or a player's ``side:<ids>``),
    or a link's digest (``spectator``)."""

    battle_id: int
    role: str
    user_id: int | None = None
    login_id: int | None = None
    token_id: int | None = None
    link_hash: str | None = None


def granted(session: Session, grants: Iterable[Grant]) -> set[Grant]:
    """The grants that still hold: their login session or token lives and the user is still
    who the grant's role says in the battle (its host, or the player of exactly those sides:
    a removed player's streams end), or their link is still the battle's. (Four queries,
    however many.)"""
    grants = list(grants)
    now = utcnow()
    logins = {g.login_id for g in grants if g.login_id is not None}
    tokens = {g.token_id for g in grants if g.token_id is not None}
    live_logins = dict(
        session.execute(
            select(UserSession.id, UserSession.user_id).where(
                UserSession.id.in_(logins), UserSession.expires_at > now
            )
        ).all()
        if logins
        else ()
    )
    live_tokens = dict(
        session.execute(select(ApiToken.id, ApiToken.user_id).where(ApiToken.id.in_(tokens))).all()
        if tokens
        else ()
    )
    battles = {
        b: (owner, link)
        for b, owner, link in session.execute(
            select(Battle.id, Battle.owner_id, Battle.share_token_hash).where(
                Battle.id.in_({g.battle_id for g in grants})
            )
        ).all()
    }
    players = {g.user_id for g in grants if g.role.startswith("side:")}
    plays: dict[tuple[int, int | None], set[int]] = {}
    if players:
        for battle_id, player_id, side_id in session.execute(
            select(BattleSide.battle_id, BattleSide.player_id, BattleSide.id).where(
                BattleSide.battle_id.in_(battles), BattleSide.player_id.in_(players)
            )
        ).all():
            plays.setdefault((battle_id, player_id), set()).add(side_id)
    out = set()
    for g in grants:
        battle = battles.get(g.battle_id)
        if battle is None:
            continue
        owner, link = battle
        if g.role == "spectator":
            if g.link_hash is not None and link == g.link_hash:
                out.add(g)
            continue
        if g.login_id is not None:
            user = live_logins.get(g.login_id)
        else:
            user = live_tokens.get(g.token_id) if g.token_id is not None else None
        if user is None or user != g.user_id:
            continue
        if user == owner:
            now_role = "host"
        else:
            sides = plays.get((g.battle_id, user), set())
            now_role = role_key(Viewer("player", frozenset(sides))) if sides else ""
        if now_role == g.role:
            out.add(g)
    return out


# ------------------------------------------------------------------------------- events


Here = tuple[tuple[int, str], ...]  # who has a battle open: (user id, name), by name


@dataclass(frozen=True)
class Rendered:
    """One event as a role sees it: htmx's out-of-band fragments (a host's forms with the
    CSRF slot) or the JSON twin's data, whichever its streams read (``form_key``)."""

    html: str = ""
    data: str = ""


JSON_SUFFIX = "|json"


def form_key(role_key: str, as_json: bool) -> str:
    """What a stream's events are rendered as: its role, as HTML or as the JSON twin's data
    (each only for the roles whose streams read it: the JSON was a tenth of the rendering)."""
    return role_key + JSON_SUFFIX if as_json else role_key


@dataclass
class Loaded:
    gone: bool = False
    newest: int = 0
    version: int = 0
    events: dict[int, dict[str, Rendered]] = field(default_factory=dict)
    connected: Here | None = None  # who had it open (as its events show), if they were read


@dataclass(frozen=True)
class Table:
    """What every role's view of a battle is made of, read once per load."""

    battle: Battle
    units: list[BattleUnit]
    sides: tuple[BattleSide, ...]
    names: dict[int, str]
    newest: int
    count: int
    undo: tuple[int | None, int | None]  # the entry Undo takes back, and its author
    connected: tuple[tuple[int, str], ...] = ()  # who has it open (presence)


def _view(table: Table, who: Role) -> BattleView:
    battle = table.battle
    ruleset = get_ruleset(battle.ruleset_id)
    units = [unit_in_battle(r, ruleset, public=not who.sees_secrets(r)) for r in table.units]
    if who.viewer.host:
        user_id: int | None = battle.owner_id
    else:  # (a player's sides are all theirs)
        user_id = next(
            (s.player_id for s in table.sides if s.id in who.viewer.side_ids and s.player_id),
            None,
        )
    return BattleView(
        battle,
        units,
        [],
        entry_count=table.count,
        last_seq=table.newest or None,
        undo_seq=table.undo[0],
        public=who.read_only,
        viewer=who.viewer,
        side_rows=table.sides,
        names=table.names,
        user_id=user_id,
        undo_actor=table.undo[1],
        connected=table.connected,
    )


def _render(
    view: BattleView, who: Role, entry: LogEntry, undone: LogEntry | None, *, as_json: bool
) -> Rendered:
    """``undone``: the entry an undo entry took back (re-rendered struck through)."""
    if as_json:
        return Rendered(data=_json(view, entry, undone))
    from app.web.templating import env  # (the pages' templates and their globals)

    page = env.get_template(PAGE)
    changed = {int(k) for k in entry.row.changes}
    ctx: dict[str, Any] = {
        "view": view,
        "read_only": who.read_only,
        "oob": True,
        "live_oob": True,
        "csrf_token": _CSRF_SLOT,
        "csrf_input": Markup('<input type="hidden" name="{}" value="{}">').format(
            FIELD, _CSRF_SLOT
        ),
        "before": None,
    }
    parts = [
        env.get_template("battles/live_event.html").render(
            ctx
            | {
                "e": entry,
                "undone": undone,
                "changed": [u for u in view.units if u.row.id in changed],
            }
        ),
        "".join(page.blocks["battle_state"](page.new_context(ctx))),
    ]
    if entry.row.kind in (JOIN_KIND, REMOVE_KIND):  # sides as the page has them: who plays
        parts.append("".join(page.blocks["units"](page.new_context(ctx))))
        if not who.read_only:  # (and who plays it, in the Players panel)
            parts.append("".join(page.blocks["players_list"](page.new_context(ctx))))
    if not who.read_only:  # (a read-only page's log actions never change)
        parts.append("".join(page.blocks["log_actions"](page.new_context(ctx))))
    html = "".join(parts).replace("\r\n", "\n").replace("\r", "\n")
    return Rendered(html=html)


def _json(view: BattleView, entry: LogEntry, undone: LogEntry | None) -> str:
    """The JSON twin's data of an event."""
    changed = {int(k) for k in entry.row.changes}
    data = {
        "seq": entry.row.seq,
        "entry": entry_out(entry, view.ruleset).model_dump(mode="json"),
        "undone": (
            None if undone is None else entry_out(undone, view.ruleset).model_dump(mode="json")
        ),
        "units": [unit_out(u).model_dump(mode="json") for u in view.units if u.row.id in changed],
        "status": view.battle.status,
        "last_seq": view.last_seq,
    }
    return json.dumps(data, separators=(",", ":"))


def load_events(
    make_session: sessionmaker[Session],
    battle_id: int,
    after: int,
    roles: set[str],
    have: dict[int, set[str]],
) -> Loaded:
    """The battle's newest number and version, and each entry numbered above ``after`` (the
    newest ``MAX_REPLAY``) rendered for each of ``roles`` that ``have`` lacks."""
    with make_session() as session:
        # The battle's version and its log's newest number in one statement (one snapshot,
        # whatever the database): read apart, an action committed between the two made its
        # entry look taken back at the next load (a ``reload`` repeating its number).
        entries = select(BattleEntry.seq).where(BattleEntry.battle_id == battle_id).subquery()
        head = session.execute(
            select(
                Battle,
                select(func.count()).select_from(entries).scalar_subquery(),
                select(func.max(entries.c.seq)).scalar_subquery(),
            ).where(Battle.id == battle_id)
        ).one_or_none()
        if head is None:
            return Loaded(gone=True)
        battle, count, newest = head
        newest = newest or 0
        low = max(after, newest - MAX_REPLAY)
        wanted = [s for s in range(low + 1, newest + 1) if not roles <= have.get(s, set())]
        loaded = Loaded(newest=newest, version=battle.version)
        if not wanted:
            return loaded
        rows = session.execute(
            select(BattleEntry, User.display_name)
            .outerjoin(User, User.id == BattleEntry.actor_id)
            .where(BattleEntry.battle_id == battle_id, BattleEntry.seq.in_(wanted))
            .order_by(BattleEntry.seq)
        ).all()
        units = list(
            session.scalars(
                select(BattleUnit)
                .where(BattleUnit.battle_id == battle_id)
                .order_by(BattleUnit.position, BattleUnit.id)
            )
        )
        sides = tuple(
            session.scalars(
                select(BattleSide)
                .where(BattleSide.battle_id == battle_id)
                .order_by(BattleSide.position)
            )
        )
        people = {battle.owner_id, *(s.player_id for s in sides if s.player_id is not None)}
        names = dict(
            session.execute(select(User.id, User.display_name).where(User.id.in_(people))).all()
        )
        # the entries the undo entries among them took back, as they now stand (struck through)
        targets = {
            int(entry.request["undoes"])
            for entry, _ in rows
            if entry.kind == UNDO_KIND and isinstance(entry.request.get("undoes"), int)
        }
        undone = {
            entry.seq: LogEntry(entry, name)
            for entry, name in (
                session.execute(
                    select(BattleEntry, User.display_name)
                    .outerjoin(User, User.id == BattleEntry.actor_id)
                    .where(BattleEntry.battle_id == battle_id, BattleEntry.seq.in_(targets))
                ).all()
                if targets
                else ()
            )
        }
        here = presence.connected_to(session, battle_id)
        loaded.connected = here
        table = Table(
            battle, units, sides, names, newest, count, undo_target(session, battle_id), here
        )
        views: dict[str, tuple[Role, BattleView]] = {}
        for key in roles:
            base = key.removesuffix(JSON_SUFFIX)
            if base not in views:
                who = role(base)
                views[base] = (who, _view(table, who))
            who, view = views[base]
            for entry, name in rows:
                if key not in have.get(entry.seq, set()):
                    target = entry.request.get("undoes") if entry.kind == UNDO_KIND else None
                    took_back = undone.get(target) if isinstance(target, int) else None
                    rendered = _render(
                        view, who, LogEntry(entry, name), took_back, as_json=key != base
                    )
                    loaded.events.setdefault(entry.seq, {})[key] = rendered
        return loaded


def survey(
    make_session: sessionmaker[Session], battle_ids: set[int], grants: set[Grant]
) -> tuple[dict[int, int], set[Grant], dict[int, Here]]:
    """The newest number of each battle's log, the grants that still hold, and who has each
    battle open."""
    with make_session() as session:
        newest = dict(
            session.execute(
                select(BattleEntry.battle_id, func.max(BattleEntry.seq))
                .where(BattleEntry.battle_id.in_(battle_ids))
                .group_by(BattleEntry.battle_id)
            ).all()
        )
        here = {b: tuple(people) for b, people in presence.connected(session, battle_ids).items()}
        return newest, granted(session, grants), here


def _connected(make_session: sessionmaker[Session], battle_id: int) -> Here:
    with make_session() as session:
        return presence.connected_to(session, battle_id)


def presence_event(here: Here) -> Rendered:
    """A "presence" event: who has the battle open (the same for every role)."""
    from app.web.templating import env  # (the pages' templates and their globals)

    html = env.get_template("battles/connected.html").render(connected=here, connected_oob=True)
    data = json.dumps({"connected": [name for _, name in here]}, separators=(",", ":"))
    return Rendered(html=html.strip(), data=data)


def sse(seq: int, kind: str, data: str) -> str:
    """One Server-Sent Event (a line break in ``data`` starts a new ``data:`` line)."""
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"id: {seq}\nevent: {kind}\n{lines}\n"


# ------------------------------------------------------------------------------- streams


class Stream:
    """One open stream: what it is owed, by the hub, in order, through its queue."""

    def __init__(self, grant: Grant, *, after: int, key: str, csrf: str, as_json: bool) -> None:
        self.grant = grant
        self.sent = after  # the newest number handed to the queue
        self.key = key  # whose bound it counts against
        self.csrf = csrf
        self.as_json = as_json
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_EVENTS)
        self.ended = False

    def push(self, seq: int, kind: str, rendered: Rendered | None) -> None:
        """Queue an event; an entry numbered at or below the last one queued is dropped
        (whatever the hub's races, a stream never repeats or reorders an entry)."""
        if self.ended or (kind == "entry" and seq <= self.sent):
            return
        if rendered is None:
            data = "reload"
        elif self.as_json:
            data = rendered.data
        else:
            data = rendered.html.replace(_CSRF_SLOT, self.csrf)
        try:
            self.queue.put_nowait(sse(seq, kind, data))
        except asyncio.QueueFull:  # a client this far behind reconnects and catches up
            self.end()
            return
        self.sent = seq

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
            if self.queue.full():  # (make room for the end)
                self.queue.get_nowait()
                self.queue.put_nowait(None)


@dataclass
class Watch:
    """A battle's streams in this process, and its last events rendered."""

    battle_id: int
    streams: set[Stream] = field(default_factory=set)
    cache: OrderedDict[int, dict[str, Rendered]] = field(default_factory=OrderedDict)
    newest: int | None = None
    version: int | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    again: bool = False
    connected: Here | None = None  # who had it open, as its streams were last told
    failures: int = 0  # loads failed in a row (the next try waits longer)
    retrying: bool = False  # a retry is scheduled


class Hub:
    """The process's streams by battle (see the module's doc)."""

    retry_first = 0.5  # seconds before a failed load or recheck is tried again (doubling)
    retry_most = 30.0

    def __init__(
        self,
        settings: Settings,
        make_session: sessionmaker[Session],
        write_session: sessionmaker[Session] | None = None,
    ) -> None:
        self.settings = settings
        self.make_session = make_session
        # presence heartbeats: short writes, off the request pool when the app has one
        self.write_session = write_session
        self.loop = asyncio.get_running_loop()
        self.watches: dict[int, Watch] = {}
        self.counts: Counter[str] = Counter()
        self.total = 0
        self.pool = ThreadPoolExecutor(2, thread_name_prefix="live")
        self.listening = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        self.postgres = not settings.is_sqlite
        live.listen(self._from_commit)
        self.tasks.append(asyncio.create_task(self._survey_loop()))
        if self.postgres:
            self.tasks.append(asyncio.create_task(self._listen_loop()))
        else:
            self.listening.set()

    def stop(self) -> None:
        live.unlisten(self._from_commit)
        for task in self.tasks:
            task.cancel()
        for watch in self.watches.values():
            for stream in watch.streams:
                stream.end()
        self.pool.shutdown(wait=False)

    # --------------------------------------------------------------- opening and closing

    async def open(self, grant: Grant, *, after: int, key: str, csrf: str, as_json: bool) -> Stream:
        """A stream of the battle's events numbered above ``after`` (what it missed first);
        StreamsBusy past a bound."""
        if self.total >= self.settings.live_streams_per_process:
            raise StreamsBusy("live streams on this server")
        if self.counts[key] >= self.settings.live_streams_per_user:
            raise StreamsBusy("your live streams")
        stream = Stream(grant, after=after, key=key, csrf=csrf, as_json=as_json)
        self.total += 1
        self.counts[key] += 1
        self.watches.setdefault(grant.battle_id, Watch(grant.battle_id)).streams.add(stream)
        opened = False
        try:
            try:
                # Listening before the first read: an entry committed after it is heard of.
                await asyncio.wait_for(self.listening.wait(), 10)
            except TimeoutError:
                log.warning("live: not listening yet; the survey catches up")
            try:
                await self._sync(grant.battle_id, wait=True)
            except Exception as exc:
                log.warning("live: a stream could not be opened: %r", exc)
                raise StreamsBusy("live", "the live stream is busy: try again later") from exc
            opened = True
        finally:
            if not opened:  # (a failed or cancelled open counts against no bound)
                self.close(stream)
        return stream

    def close(self, stream: Stream) -> None:
        stream.end()
        watch = self.watches.get(stream.grant.battle_id)
        if watch is None or stream not in watch.streams:
            return
        watch.streams.discard(stream)
        self.total -= 1
        self.counts[stream.key] -= 1
        if self.counts[stream.key] <= 0:
            del self.counts[stream.key]
        if not watch.streams:
            del self.watches[stream.grant.battle_id]

    async def present(self, stream: Stream) -> None:
        """The stream's user has the battle open: their presence written (once a heartbeat
        per stream, in a short session of its own in the hub's threads; a spectator's link
        names nobody). A failure is logged, never the stream's end."""
        user_id = stream.grant.user_id
        if user_id is None or self.write_session is None or stream.ended:
            return
        try:
            await self.loop.run_in_executor(
                self.pool, presence.heartbeat, self.write_session, stream.grant.battle_id, user_id
            )
        except Exception:
            log.exception("live: the presence heartbeat failed")

    # --------------------------------------------------------------- hearing of changes

    def _from_commit(self, messages: list[str]) -> None:
        """This process committed (any thread): hand the messages to the loop."""
        with contextlib.suppress(RuntimeError):  # (the loop is closed: nobody to tell)
            self.loop.call_soon_threadsafe(self.heard, messages)

    def heard(self, messages: Iterable[str]) -> None:
        users: set[int] = set()
        battles: set[int] = set()
        for message in messages:
            parsed = live.parse(message)
            if parsed is None:
                continue
            kind, ident, seq = parsed
            watch = self.watches.get(ident) if kind != "u" else None
            if kind == "b" and watch is not None and seq != watch.newest:
                self._later(self._sync(ident))
            elif kind == "a" and watch is not None:
                battles.add(ident)
            elif kind == "p" and watch is not None:
                self._later(self._presence(watch))
            elif kind == "u":
                users.add(ident)
        if users or battles:
            self._later(self._recheck(lambda g: g.battle_id in battles or g.user_id in users))

    def _later(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self.tasks.append(task)
        task.add_done_callback(self.tasks.remove)

    def _backoff(self, failures: int) -> float:
        return float(min(self.retry_first * 2 ** max(failures - 1, 0), self.retry_most))

    async def _recheck(self, which: Callable[[Grant], bool], failures: int = 0) -> None:
        """End the streams ``which`` picks whose access is gone. A failed read is no answer:
        asked again later (never read as access lost)."""
        streams = [s for w in self.watches.values() for s in w.streams if which(s.grant)]
        if not streams:
            return
        grants = {s.grant for s in streams}
        try:
            _, alive, _ = await self.loop.run_in_executor(
                self.pool, survey, self.make_session, set(), grants
            )
        except Exception as exc:
            wait = self._backoff(failures + 1)
            log.warning("live: a recheck failed (%r); again in %.1f s", exc, wait)
            await asyncio.sleep(wait)
            self._later(self._recheck(which, failures + 1))
            return
        self._end_unless(streams, alive)

    def _end_unless(self, streams: Iterable[Stream], alive: set[Grant]) -> None:
        for stream in streams:
            if stream.grant not in alive:
                self.close(stream)

    async def _sync(self, battle_id: int, *, wait: bool = False) -> None:
        """Bring every stream of the battle up to its newest entry (one at a time a battle;
        a change heard meanwhile runs it again). ``wait``: return only once that is done
        (a stream being opened has what it missed queued before its first byte)."""
        watch = self.watches.get(battle_id)
        if watch is None:
            return
        watch.again = True
        if watch.lock.locked() and not wait:
            return  # (the sync under way runs once more)
        async with watch.lock:
            while watch.again:
                watch.again = False
                streams = [s for s in watch.streams if not s.ended]
                if not streams:
                    return
                roles = {form_key(s.grant.role, s.as_json) for s in streams}
                low = min(s.sent for s in streams)
                have = {seq: set(by_role) for seq, by_role in watch.cache.items()}
                try:
                    loaded = await self.loop.run_in_executor(
                        self.pool, load_events, self.make_session, battle_id, low, roles, have
                    )
                except Exception as exc:
                    # (a pool timeout under load): every stream is owed the same later
                    watch.failures += 1
                    self._retry(watch, exc)
                    if wait:
                        raise
                    return
                watch.failures = 0
                self._deliver(watch, loaded, low, roles)

    def _retry(self, watch: Watch, exc: Exception) -> None:
        if watch.retrying:
            return
        watch.retrying = True
        wait = self._backoff(watch.failures)
        log.warning(
            "live: battle %d's events failed to load (%r); again in %.1f s",
            watch.battle_id,
            exc,
            wait,
        )

        async def again() -> None:
            await asyncio.sleep(wait)
            watch.retrying = False
            if self.watches.get(watch.battle_id) is watch:
                await self._sync(watch.battle_id)

        self._later(again())

    def _deliver(self, watch: Watch, loaded: Loaded, low: int, roles: set[str]) -> None:
        if loaded.gone:
            for stream in list(watch.streams):
                self.close(stream)
            return
        newest = loaded.newest
        # An entry removed (Undo removing the last entry) or a change without one: what the
        # pages show is no longer a prefix of the log; they reload.
        rewound = (
            watch.newest is not None
            and newest <= watch.newest
            and watch.version is not None
            and loaded.version != watch.version
        )
        if rewound or (watch.newest is not None and newest < watch.newest):
            watch.cache.clear()
            rewound = True
        if loaded.connected is not None:  # (the events' battle state shows it)
            if watch.connected is not None and loaded.connected != watch.connected:
                # read before a presence event already sent: read again, and tell if the
                # pages (these events' battle state) are now behind
                self._later(self._presence(watch))
            watch.connected = loaded.connected
        for seq, by_role in loaded.events.items():
            watch.cache.setdefault(seq, {}).update(by_role)
        watch.cache = OrderedDict(sorted(watch.cache.items()))
        watch.newest, watch.version = newest, loaded.version
        for stream in list(watch.streams):
            key = form_key(stream.grant.role, stream.as_json)
            if stream.sent < low or key not in roles:
                watch.again = True  # (opened while this was loaded: its turn is next)
                continue
            if rewound or stream.sent > newest or newest - stream.sent > MAX_REPLAY:
                if rewound or stream.sent != newest:
                    stream.push(newest, "reload", None)
                stream.sent = newest
                continue
            for seq, by_role in watch.cache.items():
                if seq > stream.sent:
                    stream.push(seq, "entry", by_role[key])
            stream.sent = newest
        while len(watch.cache) > CACHE_EVENTS:
            watch.cache.popitem(last=False)

    async def _survey_loop(self) -> None:
        """SQLite: every poll, each streamed battle's newest number and who may still watch.
        PostgreSQL: the same at every heartbeat, for what a lost notification missed (and
        sessions that expired)."""
        every = self.settings.live_heartbeat_seconds
        if not self.postgres:
            every = self.settings.live_poll_seconds
        while True:
            await asyncio.sleep(every)
            await self.survey_once()

    async def survey_once(self) -> None:
        """Each streamed battle's newest number and who may still watch; a failed read is
        no answer (the next survey asks again)."""
        if not self.watches:
            return
        # The streams asked about, taken before the read: one opened meanwhile was not asked
        # about, and ending it for that ended streams nobody's access had changed.
        streams = [s for w in self.watches.values() for s in w.streams]
        try:
            newest, alive, here = await self.loop.run_in_executor(
                self.pool,
                survey,
                self.make_session,
                set(self.watches),
                {s.grant for s in streams},
            )
        except Exception as exc:
            log.warning("live: the survey failed (%r); the next one asks again", exc)
            return
        self._end_unless(streams, alive)
        for battle_id, watch in list(self.watches.items()):
            if newest.get(battle_id, 0) != watch.newest or self.postgres:
                self._later(self._sync(battle_id))
            self._tell_presence(watch, here.get(battle_id, ()))

    async def _presence(self, watch: Watch) -> None:
        """Someone arrived: who has the battle open, read now and told if it changed (a
        failed read waits for the next survey)."""
        try:
            here = await self.loop.run_in_executor(
                self.pool, _connected, self.make_session, watch.battle_id
            )
        except Exception as exc:
            log.warning("live: who is connected could not be read (%r)", exc)
            return
        if self.watches.get(watch.battle_id) is watch:
            self._tell_presence(watch, here)

    def _tell_presence(self, watch: Watch, here: Here) -> None:
        """Who has the battle open changed without an entry (someone opened or left its page):
        every stream of it is told, in a "presence" event (its id repeats the stream's last,
        so a page that reconnects resumes after its last entry)."""
        if watch.connected == here:
            return
        watch.connected = here
        event = presence_event(here)
        for stream in list(watch.streams):
            stream.push(stream.sent, "presence", event)

    async def _listen_loop(self) -> None:
        """PostgreSQL: LISTEN on a connection of the process's own; reconnect when it drops
        (and catch every stream up: what was sent meanwhile was not heard)."""
        import psycopg

        url = self.settings.live_database_url or self.settings.database_url
        url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        wait = 0.5
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {live.CHANNEL}")
                    self.listening.set()
                    wait = 0.5
                    for battle_id in list(self.watches):
                        self._later(self._sync(battle_id))
                    async for note in conn.notifies():
                        self.heard((note.payload,))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("live: the LISTEN connection failed; retrying in %.1f s", wait)
            self.listening.clear()
            await asyncio.sleep(wait)
            wait = min(wait * 2, 30.0)


def hub_for(app: Any) -> Hub:
    """The app's hub on the running event loop (made on first use)."""
    hub: Hub | None = getattr(app.state, "live_hub", None)
    if hub is None or hub.loop is not asyncio.get_running_loop():
        if hub is not None:
            hub.stop()
        hub = Hub(
            app.state.settings,
            app.state.live_sessionmaker,
            getattr(app.state, "bookkeeping", None),
        )
        app.state.live_hub = hub
    return hub


async def events(hub: Hub, stream: Stream) -> AsyncIterator[str]:
    """The stream's text: what it is owed as it comes, a heartbeat comment when nothing
    does, until its time is up or the hub ends it (``ended``: its access is gone)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + hub.settings.live_stream_seconds
    heartbeat = hub.settings.live_heartbeat_seconds
    try:
        await hub.present(stream)  # (connected from the stream's first byte)
        yield f"retry: {RETRY_MS}\n\n"
        while True:
            if not stream.queue.empty():
                item = stream.queue.get_nowait()
            else:
                wait = min(heartbeat, deadline - loop.time())
                if wait <= 0:
                    break
                try:
                    item = await asyncio.wait_for(stream.queue.get(), wait)
                except TimeoutError:
                    if loop.time() >= deadline:
                        break
                    await hub.present(stream)
                    yield ": heartbeat\n\n"
                    continue
            if item is None:
                yield "event: ended\ndata: access ended\n\n"
                break
            yield item
    finally:
        hub.close(stream)
