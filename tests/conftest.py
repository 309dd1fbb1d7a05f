import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", help="Regenerate fixtures/golden/*.json.")


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # Reports name inputs as given; goldens use paths relative to the repository root.
    monkeypatch.chdir(ROOT)


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


os.environ.setdefault("LOGSCOPE_CACHE_DIR", str(ROOT / ".pytest_cache" / "lark"))
