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
    secret_key: str = ""
    # Cookies marked Secure only when served over HTTPS (docker behind a proxy sets this).
    secure_cookies: bool = False
    session_max_age_seconds: int = 14 * 24 * 3600
    # Login throttling: this many failures per account or per client address in the window.
    login_max_failures: int = 5
    login_window_seconds: int = 15 * 60
    # argon2id cost; tests lower the memory to keep the suite fast.
    argon2_memory_kib: int = 65536
    argon2_time_cost: int = 3
    # Heavy calculations (odds, rolls) run in worker processes apart from request handling.
    calc_workers: int = 2
    calc_queue: int = 4
    calc_deadline_seconds: float = 3.0
    # Public calculators: a token bucket per client address (in process; one per server).
    calc_rate_per_minute: int = 120
    calc_rate_burst: int = 30

    @model_validator(mode="after")
    def _fill_secret_key(self) -> Settings:
        if not self.secret_key:
            self.secret_key = _secret_key_from_var()
        return self

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read from the environment once."""
    return Settings()
