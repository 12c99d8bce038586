from kschedctl.cli.app import main

main()
