from rulemap.cli.main import entry

entry()
