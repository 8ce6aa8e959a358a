from suggestbot.cli import main

raise SystemExit(main())
