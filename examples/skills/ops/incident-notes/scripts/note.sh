#!/bin/sh
# Appends one timestamped line to incident.md.
set -eu
printf '%s  %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >> incident.md
