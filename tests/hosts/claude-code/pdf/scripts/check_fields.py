"""Fixture script: prints whether the PDF named on the command line exists."""
import sys

print("fixture", sys.argv[1:] if len(sys.argv) > 1 else "no file")
