from codebot.cli import main

raise SystemExit(main())
