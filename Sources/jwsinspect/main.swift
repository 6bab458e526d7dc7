import JWSInspectCLI

Command.main()
