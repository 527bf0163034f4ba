"""Sessions: a run replayed step by step (`replay.py`), from tool steps read out of text
(`transcripts.py`)."""
