#!/usr/bin/env bash
# Ray's tests (`pytest -m ray`: the Ray backend, the RLlib trainer and policy) in a venv of their
# own, .venv-ray, with RLlib's gymnasium pin (ray[rllib] 2.60 pins gymnasium==1.2.2), while the
# main .venv (scripts/setup.sh without the scale extra) takes the newest gymnasium in the project's
# range, as a user's `pip install patience-gym` does.
#
# .venv-ray holds Ray, RLlib and what they pin, nothing else: everything else (torch, sb3, pytest,
# and patience-gym itself, installed editable in .venv with its compiled engine) it reads from
# .venv's site-packages, placed after its own by a .pth file. So no second build of the native
# engine and no second torch: about a minute and a half on 2 cores (the pip cache warm), and the
# Ray tests leave the main suite.
# Usage: bash scripts/test_ray.sh [pytest arguments]   (scripts/test.sh runs it after the suite)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || { echo "test_ray.sh: no .venv: run scripts/setup.sh train,test first" >&2; exit 1; }
# The same interpreter as .venv's: the two site-packages must be built for one Python.
base=$(.venv/bin/python -c "import sys; print(sys._base_executable)")
[ -x .venv-ray/bin/python ] || "$base" -m venv .venv-ray
purelib="import sysconfig; print(sysconfig.get_paths()['purelib'])"
main_site=$(.venv/bin/python -c "$purelib")
ray_site=$(.venv-ray/bin/python -c "$purelib")
link="$ray_site/zz_patience_gym_main_venv.pth"
rm -f "$link"  # pip sees .venv-ray alone while it installs: Ray's pins land here, never in .venv
.venv-ray/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv-ray/bin/python -m pip install -q "ray[rllib]>=2.60,<2.61"  # as pyproject.toml's scale extra
echo "import site; site.addsitedir('$main_site')" >"$link"
.venv-ray/bin/python -c "import gymnasium, ray, patience_gym.native as n; \
print(f'test_ray.sh: ray {ray.__version__}, gymnasium {gymnasium.__version__}, native engine: {n.native_available()}')"
.venv-ray/bin/python -m pytest -m ray "$@"
