#!/usr/bin/python3
"""Writes the HLO modules embedded in the tests' raw strings (R"(HloModule ...)") to DIR, one
file each: small modules over every op family, seeds for hlo_compile_fuzz. Usage: fuzz_seeds.py ROOT DIR"""
import glob
import os
import re
import sys

root, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
count = 0
for path in sorted(glob.glob(os.path.join(root, "**", "*_test.cc"), recursive=True)):
    with open(path, errors="ignore") as f:
        text = f.read()
    for match in re.finditer(r'R"(\w*)\((.*?)\)\1"', text, re.S):
        module = match.group(2)
        # Whole modules only; templates with $-placeholders are filled in by their tests.
        if "HloModule" in module and "ENTRY" in module and "$" not in module and len(module) < 20000:
            count += 1
            with open(os.path.join(out, "t%05d.hlo" % count), "w") as f:
                f.write(module.strip() + "\n")
print("fuzz seeds: %d modules from the tests" % count)
