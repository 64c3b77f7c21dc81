#!/usr/bin/env bash
# The GitHub Action's install step (see action.yml): installs artiscan from
# what exists, never from a package index it is not published on. In order:
# INPUT_INSTALL when given (a wheel path, or a pip requirement once a
# release is on PyPI); else the wheel attached to the GitHub release of the
# Action's ref (ACTION_REF, a tag like v0.1.0, in ACTION_REPOSITORY); else a
# wheel built here from the Action's own source (needs Rust, as GitHub's
# Ubuntu runners have). Installs into a venv under $RUNNER_TEMP and puts its
# bin on $GITHUB_PATH for the next steps.
set -euo pipefail
: "${GITHUB_PATH:?GITHUB_PATH is not set}"
venv="${RUNNER_TEMP:-$(mktemp -d)}/artiscan-venv"
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet)

if [ -n "${INPUT_INSTALL:-}" ]; then
    "${pip[@]}" "$INPUT_INSTALL"
else
    dist=$(mktemp -d)
    pattern="artiscan-*-manylinux*_$(uname -m).whl"
    if [ -n "${ACTION_REF:-}" ] && command -v gh > /dev/null &&
        gh release download "$ACTION_REF" --repo "${ACTION_REPOSITORY:?}" \
            --pattern "$pattern" --dir "$dist" 2> /dev/null; then
        echo "artiscan: the wheel of release $ACTION_REF"
    else
        echo "artiscan: no release wheel for '${ACTION_REF:-}': building one from the Action's source"
        "${pip[@]}" 'maturin>=1.9,<2'
        "$venv/bin/maturin" build --release --locked \
            --manifest-path "${GITHUB_ACTION_PATH:?}/Cargo.toml" --out "$dist"
    fi
    "${pip[@]}" "$dist"/artiscan-*.whl
fi
"$venv/bin/artiscan" --version
echo "$venv/bin" >> "$GITHUB_PATH"
