"""Checks that each wheel given holds only the artiscan binary and its
metadata (dist-info: METADATA, WHEEL, RECORD, licences, SBOM); prints its
files. Used by .ci/run and the release workflow."""

import re
import sys
import zipfile

ALLOWED = re.compile(
    r"artiscan-[^/]+\.data/scripts/artiscan(\.exe)?"
    r"|artiscan-[^/]+\.dist-info/[^ ]+"
)

bad = False
for wheel in sys.argv[1:]:
    names = zipfile.ZipFile(wheel).namelist()
    print(f"{wheel}:")
    for name in names:
        ok = ALLOWED.fullmatch(name) is not None
        bad |= not ok
        print(f"  {name}{'' if ok else '   <- not the binary or its metadata'}")
    if not any(n.endswith(("/scripts/artiscan", "/scripts/artiscan.exe")) for n in names):
        print("  the binary is missing")
        bad = True
sys.exit(1 if bad or len(sys.argv) < 2 else 0)
