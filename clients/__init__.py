"""What calls agentd from outside, using the generated code only: the client half of
the `agentd` command line (cli.py, audit_cli.py; `server/cli.py` adds the server's own
commands), the Python client for other services (python/, distribution agentd-client,
package `agentd_client`), and the Go and Java gateway examples (go/, java/)."""
