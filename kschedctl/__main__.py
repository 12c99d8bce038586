from kschedctl.cli.entry import main

main()
