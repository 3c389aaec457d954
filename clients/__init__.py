"""What calls agentd from outside, using the generated code only: the client half of
the `agentd` command line (cli.py and a module per group of commands: tasks_cli.py,
agents_cli.py, conversations_cli.py, audit_cli.py; options.py and output.py for what they
read and print; `server/commands/cli.py` adds the server's own commands), the Python client for
other services (python/, distribution agentd-client, package `agentd_client`), and the Go
and Java gateway examples (go/, java/)."""
