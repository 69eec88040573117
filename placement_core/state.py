"""Where the service keeps what it writes, and which database it uses.

An installed copy never writes inside its own package directory
(site-packages): the default SQLite database and the ``collectstatic``
output go to the state directory, upstream's ``[placement] state_path``
(``PLACEMENT_STATE_PATH``, ``OS_PLACEMENT__STATE_PATH``).  Unset, it is the
source checkout itself when running from one (``make run``, the tests: the
``db.sqlite3`` beside ``manage.py``, as always), otherwise
``$XDG_STATE_HOME/placement`` (``~/.local/state/placement``; for a service
account whose home is /var/lib/placement, /var/lib/placement/.local/state/
placement).
"""
import os
import secrets
from pathlib import Path

SQLITE_NAME = "db.sqlite3"
SECRET_KEY_NAME = "secret_key"


def in_checkout(source_dir: Path) -> bool:
    """Running from a source checkout (manage.py beside the apps), not an install."""
    return (source_dir / "manage.py").is_file()


def default_state_path(source_dir: Path, environ) -> Path:
    if in_checkout(source_dir):
        return source_dir
    base = environ.get("XDG_STATE_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".local", "state")
    return Path(base) / "placement"


def state_path(configured, source_dir: Path, environ) -> Path:
    """The state directory: the configured one (made absolute) or the default."""
    if configured:
        return Path(os.path.abspath(os.path.expanduser(configured)))
    return default_state_path(source_dir, environ)


def ensure_directory(path: Path, what: str) -> None:
    """Create ``path`` (and its parents) or raise ValueError with one line."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the {what} {path}: {exc.strerror}") from None


def describe_database(db: dict) -> str:
    """One line naming the database in use, without its password."""
    engine = db["ENGINE"].rsplit(".", 1)[-1]
    if engine == "sqlite3":
        return f"sqlite {db['NAME']}"
    vendor = {"postgresql": "postgresql", "mysql": "mysql"}.get(engine, engine)
    where = db.get("HOST") or "localhost"
    if db.get("PORT"):
        where += f":{db['PORT']}"
    user = f"{db['USER']}@" if db.get("USER") else ""
    return f"{vendor} {user}{where}/{db.get('NAME')}"


def random_secret_key() -> str:
    return secrets.token_urlsafe(50)


def install_secret_key(path: Path) -> str:
    """This install's own secret key, kept in ``path/secret_key`` (mode 0600):
    made the first time, read every time after.  Workers starting together
    all read the first one written (the file appears whole or not at all).
    ValueError (one line) when it can be neither read nor made."""
    target = path / SECRET_KEY_NAME
    try:
        key = target.read_text(encoding="ascii").strip()
        if key:
            return key
        raise ValueError(f"the secret key file {target} is empty")
    except FileNotFoundError:
        pass
    except (OSError, UnicodeError) as exc:
        raise ValueError(f"cannot read the secret key file {target}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    ensure_directory(path, "state directory ([placement] state_path)")
    # A draft of its own per caller (threads share a pid): once linked, a
    # draft rewritten by another caller would change the key under a reader.
    draft = path / f".{SECRET_KEY_NAME}.{os.getpid()}.{secrets.token_hex(8)}"
    try:
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(random_secret_key() + "\n")
        try:
            os.link(draft, target)  # fails if another process made it first
        except FileExistsError:
            pass
    except OSError as exc:
        raise ValueError(f"cannot keep a secret key in {target}: {exc.strerror}") from None
    finally:
        try:
            os.unlink(draft)
        except OSError:
            pass
    return target.read_text(encoding="ascii").strip()
