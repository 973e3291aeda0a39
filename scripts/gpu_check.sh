#!/usr/bin/env bash
# scripts/gpu_check.py under its old name, for the device calls that name it (`bash scripts/gpu_check.sh run quick`).
exec python3 "$(dirname "$0")/gpu_check.py" "$@"
