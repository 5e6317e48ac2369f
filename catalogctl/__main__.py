from catalogctl.cli.entry import main

main()
