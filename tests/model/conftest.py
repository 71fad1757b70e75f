import sys
from pathlib import Path

# manifest_kit (the valid base workflow) lives with the manifest tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "manifest"))
