from catalogctl.cli.app import main

main()
