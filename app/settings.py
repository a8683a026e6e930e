"""Settings from the environment, read once through ``get_settings()``."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
VAR_DIR = PROJECT_ROOT / "var"


def _secret_key_from_var() -> str:
    """Keep a generated key in var/ so sessions survive restarts without set-up."""
    path = VAR_DIR / "secret_key"
    if path.exists():
        return path.read_text().strip()
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    path.write_text(key)
    path.chmod(0o600)
    return key


class Settings(BaseSettings):
    """Everything configurable, with zero-set-up defaults."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    database_url: str = Field(default=f"sqlite:///{VAR_DIR / 'brikforge.db'}")
    # Off behind a transaction-mode pooler that cannot keep them (PgBouncer before 1.21).
    database_prepared_statements: bool = True
    # Connections per app process for requests (pool size, and how many more at a peak);
    # every worker of every server has its own: together they must fit the server's
    # max_connections (or the pooler's pool). None more at a peak by default: the pool closes
    # such a connection as soon as it comes back, so a sustained peak opened a new
    # PostgreSQL connection (a server process, a login) every dozen requests (197 in 2,354
    # army pages, 32 connections on 4 workers); past the pool's size a request waits. Keep it
    # above calc_workers + calc_queue: a saved calculation waits for its worker holding one.
    database_pool_size: int = Field(default=8, ge=1, le=100)
    database_max_overflow: int = Field(default=0, ge=0, le=100)
    secret_key: str = ""
    # Cookies marked Secure only when served over HTTPS (docker behind a proxy sets this).
    secure_cookies: bool = False
    session_max_age_seconds: int = 14 * 24 * 3600
    # Login throttling. Failures of one account from one address are remembered this long;
    login_window_seconds: int = 24 * 3600
    # this many of them are free; then each try waits twice as long as the one before
    # (2 s, 4 s, ...), at most the cap. Failures from other addresses never count.
    login_max_failures: int = 5
    login_backoff_max_seconds: int = 15 * 60
    # One address failing this often over any accounts (spraying) waits out this window.
    login_address_max_failures: int = 30
    login_address_window_seconds: int = 15 * 60
    # Sign-ups from one client address in the window.
    signup_max_per_address: int = 10
    signup_window_seconds: int = 3600
    # What one account may have (a 422 past it).
    max_armies_per_user: int = 500
    max_battles_per_user: int = 200
    max_clubs_per_user: int = 20
    max_api_tokens_per_user: int = 20
    max_share_links_per_army: int = 20
    max_open_invitations_per_club: int = 50
    # Rows one account may hold, over all its armies and battles (kept as counters, issue 30
    # F5). 20,000 units: twenty armies at the 1,000-unit cap an army has, far beyond any
    # table's collection. 100,000 weapons: five a unit on average at that (a gunship carries
    # 12, a minifig one or none). 100,000 log entries: 500 for each of the 200 battles allowed,
    # a long game having a few hundred. At about 1 kB a row that bounds an account near
    # 0.2 GB, where one account wrote 516,000 weapon rows in 20 s before.
    max_units_per_user: int = 20_000
    max_weapons_per_user: int = 100_000
    max_log_entries_per_user: int = 100_000
    # Proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (addresses or networks,
    # comma-separated, "*" for any); none by default: the peer's own address counts.
    trusted_proxies: str = ""
    # argon2id cost; tests lower the memory to keep the suite fast.
    argon2_memory_kib: int = 65536
    argon2_time_cost: int = 3
    # Each hash holds ARGON2_MEMORY_KIB while it runs: a server process hashes at most this
    # many passwords at once; at most PASSWORD_HASH_QUEUE more wait (one a client address),
    # each at most PASSWORD_HASH_WAIT_SECONDS, then 503 with Retry-After
    # (``app.services.hash_gate``).
    password_hash_permits: int = Field(default=1, ge=1, le=64)
    password_hash_wait_seconds: float = Field(default=2.0, ge=0, le=60)
    password_hash_queue: int = Field(default=8, ge=0, le=1000)
    # Heavy calculations (odds, rolls) run in worker processes apart from request handling.
    calc_workers: int = 2
    calc_queue: int = 4
    calc_deadline_seconds: float = 3.0
    # Reading requests (GET, HEAD) a server process works on at once; the rest wait their
    # turn, in order (``app.services.work_slots``). 0: no limit. On the 2-core machine, 4
    # workers, 32 connections, alternating runs of 12 s: the calculator fragment's p99 was
    # 75-117 ms with 4, against 92-187 ms with no limit; the army page's 60-87 against 78-101.
    reading_slots: int = Field(default=4, ge=0, le=1000)
    # Work whose cost grows with an army's size (issue 30 F2, F3; ``app.services.heavy_gate``):
    # the exports, printable sheet, history and page of an army of at least HEAVY_ARMY_ROWS
    # rows (units plus weapons: a 1,000-gunship army of 12 weapons each has 13,000; the
    # largest example army 40), and an import of at least HEAVY_IMPORT_BYTES, together with
    # their API twins. A server process works on at most HEAVY_SLOTS of them at once, apart
    # from the reading slots (a heavy GET gives its reading slot back before it waits), at
    # most HEAVY_SLOTS_PER_ACCOUNT for one account (or one address, for a shared link). Past
    # that a request waits its turn, at most HEAVY_WAIT_SECONDS; at most HEAVY_QUEUE wait
    # in all, HEAVY_QUEUE_PER_ACCOUNT for one account: the next is a 503 with Retry-After.
    heavy_slots: int = Field(default=3, ge=1, le=1000)
    heavy_slots_per_account: int = Field(default=2, ge=1, le=1000)
    heavy_wait_seconds: float = Field(default=10.0, ge=0, le=600)
    heavy_queue: int = Field(default=16, ge=0, le=10_000)
    heavy_queue_per_account: int = Field(default=2, ge=0, le=1000)
    heavy_army_rows: int = Field(default=1000, ge=0, le=10_000_000)
    heavy_import_bytes: int = Field(default=100_000, ge=0, le=10_000_000)
    # A "busy" 503 (calculators, password hashes, heavy work) is sent after this pause (an
    # asyncio sleep: no thread, no connection, no CPU), at most BUSY_PAUSES at once a process
    # (past that, at once): a client that waits for its answer before asking again can then
    # ask at most once a pause a connection (ruling G14). 0: no pause.
    busy_pause_seconds: float = Field(default=1.0, ge=0, le=10)
    busy_pauses: int = Field(default=256, ge=0, le=100_000)
    # The army page shows this many units a page (every total still counts them all).
    army_page_units: int = Field(default=50, ge=1, le=1000)
    # Public calculators: a token bucket per client address, in the database (one limit
    # across every server and worker).
    calc_rate_per_minute: int = 120
    calc_rate_burst: int = 30
    # Live battles (``app.web.live``): Server-Sent Event streams open at once per user (a
    # visitor on a read-only link: per client address) and per server process; past either a
    # 503 with Retry-After. A stream sends a heartbeat this often, and ends after
    # LIVE_STREAM_SECONDS (the browser reopens it from its last event: access is asked again).
    live_streams_per_user: int = Field(default=8, ge=1, le=1000)
    live_streams_per_process: int = Field(default=1000, ge=1, le=100_000)
    live_heartbeat_seconds: float = Field(default=15.0, gt=0, le=300)
    live_stream_seconds: float = Field(default=600.0, ge=0, le=86_400)
    # PostgreSQL: the LISTEN connection's address (default DATABASE_URL). It must reach
    # PostgreSQL directly or through a session-mode pooler: LISTEN does not survive
    # PgBouncer's transaction mode.
    live_database_url: str = ""
    # SQLite: how often a process reads the newest log numbers of the battles it streams.
    live_poll_seconds: float = Field(default=0.25, gt=0, le=10)

    @model_validator(mode="after")
    def _fill_secret_key(self) -> Settings:
        if not self.secret_key:
            self.secret_key = _secret_key_from_var()
        return self

    @property
    def trusted_proxy_list(self) -> list[str]:
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read from the environment once."""
    return Settings()
