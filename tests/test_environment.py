"""The environment commands get (codebot/environment.py) and `shell.env`, which only the
person's own config may set (issue 30, part 3). Pure functions and config files; the
real processes are in tests/agent/test_secrets_e2e.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from codebot.agent.model import providers
from codebot.config import load_settings
from codebot.environment import ShellEnv, added_env, command_env, is_secret, read_shell_env
from codebot.home import codebot_home

ENVIRON = {
    "PATH": "/usr/bin",
    "HOME": "/home/u",
    "LANG": "C.UTF-8",
    "TERM": "xterm",
    "OPENAI_API_KEY": "sk-1",
    "GITHUB_TOKEN": "ghp-2",
    "gh_token": "ghp-3",
    "AWS_SECRET_ACCESS_KEY": "aws-4",
    "AWS_ACCESS_KEY_ID": "AKIA5",
    "AWS_SESSION_TOKEN": "aws-6",
    "AZURE_OPENAI_ENDPOINT": "https://a",
    "GOOGLE_APPLICATION_CREDENTIALS": "/k.json",
    "HF_TOKEN": "hf-7",
    "PGPASSWORD": "pg-8",
    "Db_Password": "pw-9",
    "MY_SERVICE_SECRET": "s-10",
    "SSH_AUTH_SOCK": "/run/ssh",
    "PWD": "/p",
}
KEPT_BY_DEFAULT = {"PATH", "HOME", "LANG", "TERM", "SSH_AUTH_SOCK", "PWD"}


def test_secret_names_are_left_out_whatever_their_case() -> None:
    env = command_env(ENVIRON)
    assert set(env) == KEPT_BY_DEFAULT
    assert not any(is_secret(name) for name in KEPT_BY_DEFAULT)


def test_every_provider_key_variable_is_left_out() -> None:
    """The provider table lives above this module (agent/model): checked here instead."""
    names = {
        *providers.DEFAULT_MODELS,
        *providers.PROVIDER_KEYS.values(),
        *(n for names in providers.KEY_VARIABLES.values() for n in names),
        "CODEBOT_API_KEY",
    }
    assert names and [n for n in sorted(names) if not is_secret(n)] == []


def test_keep_and_set() -> None:
    env = command_env(
        ENVIRON,
        keep=["MY_SERVICE_*", "HF_TOKEN", "openai_api_key"],
        set={"PAGER": "cat", "GH_TOKEN": "x"},
    )
    assert env["MY_SERVICE_SECRET"] == "s-10" and env["HF_TOKEN"] == "hf-7"
    assert "OPENAI_API_KEY" not in env  # names are compared case-sensitively, as the shell does
    assert env["PAGER"] == "cat" and env["GH_TOKEN"] == "x"
    assert ENVIRON["OPENAI_API_KEY"] == "sk-1"  # pure: the input is not changed
    added = added_env(ENVIRON, ShellEnv(("MY_SERVICE_*", "PATH"), {"X": "1"}))
    assert added == {"MY_SERVICE_SECRET": "s-10", "X": "1"}  # PATH is there anyway


def test_read_shell_env_reports_and_drops_bad_entries() -> None:
    warnings: list[str] = []
    cfg = {
        "shell": {
            "env": {
                "keep": ["A_*", 3, "B=c", ""],
                "set": {"X": "1", "N": 2, "bad name": "v", "T": True},
                "other": 1,
            }
        }
    }
    got = read_shell_env(cfg, "cfg.yaml", warnings)
    assert got.keep == ("A_*",) and dict(got.set) == {"X": "1", "N": "2"}
    assert len(warnings) == 6 and all(w.startswith("cfg.yaml: shell.env") for w in warnings)
    assert read_shell_env({"shell": {"env": "keep everything"}}, "c", warnings) == ShellEnv()
    assert read_shell_env({}, "c", []) == ShellEnv()


def project_with(tmp_path: Path, text: str) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".codebot").mkdir()
    (project / ".codebot" / "config.yaml").write_text(text)
    return project


@pytest.mark.parametrize("trusted", [True, False])
def test_only_the_persons_own_config_sets_shell_env(tmp_path: Path, trusted: bool) -> None:
    (codebot_home() / "config.yaml").write_text(
        "shell: {env: {keep: [MY_*], set: {FROM_USER: u}}}\n"
    )
    project = project_with(tmp_path, "shell: {env: {keep: ['*'], set: {GITHUB_TOKEN: planted}}}\n")
    settings = load_settings(cwd=project, trust=trusted)
    assert settings.shell_env.keep == ("MY_*",) and dict(settings.shell_env.set) == {
        "FROM_USER": "u"
    }
    said = [w for w in settings.warnings if "shell.env" in w]
    assert (
        len(said) == 1
        and "is read only from your own config" in said[0]
        and str(project) in said[0]
    )
    assert not any("ignored: shell" in w for w in settings.warnings)  # said once, not twice


def test_the_control_without_a_project_setting_nothing_is_said(tmp_path: Path) -> None:
    project = project_with(tmp_path, "shell: {}\n")
    settings = load_settings(cwd=project, trust=True)
    assert settings.shell_env == ShellEnv() and not any("shell.env" in w for w in settings.warnings)
