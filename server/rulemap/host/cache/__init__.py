"""The caches the host keeps between runs, under the user's cache directory: `rulemap check`'s
result cache and the snapshot a check after an edit resumes from (docs/checks.md, "The result
cache", "A check after an edit"), and the language server's start cache.

- `directory.py`: where the entries live (`$RULEMAP_CACHE_DIR`, else `$XDG_CACHE_HOME/rulemap`),
  whether the cache is on, whether the directory may be trusted, and the warning when not;
- `check_results.py`: a check's key, its entry read back (the report an unchanged repository
  gets again) and written;
- `report_spool.py`: what a cold check prints, kept in a temporary file until its entry is
  written;
- `recorded_check.py`: a cold check's recording — a fresh one, or the resumed snapshot's —
  and what is left after its report (the entry, the snapshot);
- `resume_snapshot.py`: the snapshot file beside an entry — found and validated before the
  engine is imported, resumed, written (from a child process after the report);
- `pickled_workspace.py`: the workspace a snapshot holds, pickled, unpickled and updated;
- `server_start.py`: the language server's start entries (the diagnostics a folder opened
  again shows at once).

The edges only translate: the CLI prints a cached report or the warning and watches its own
streams (cli/check_cache.py), the server turns stored diagnostics into its publish calls
(lsp/start_cache.py).

Why the disk is not touched here: every read, write, stat and listing goes through
`readers/cache_entries.py` (the sealed entries in the private directory: its owner and mode
checks, the descriptor held on it, `O_NOFOLLOW`, the seal) and `readers/check_store.py` (a
record's questions asked of the disk again), beside `readers/safe_write.py`, which has the
same threat — a file planted or swapped by someone else. The security-relevant calls stay in
the one directory `tests/core/test_layers.py::test_no_disk_access_outside_readers` lets touch
the disk, so that test still means what it says; this package decides what is stored, under
which key and when it is believed.

Light: a warm `rulemap check` imports this package's `directory` and `check_results` and the
two readers above, and nothing of the engine (a miss looks for its snapshot with
`resume_snapshot` before the engine too); the language server imports `server_start` before
its first folder is indexed. The package itself imports none of its modules.
"""
