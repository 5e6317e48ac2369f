from catalogctl.cli import main

main()
