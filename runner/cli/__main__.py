from stepsmith.runner.cli import console_main

console_main()
