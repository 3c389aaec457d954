"""What calls agentd from outside: the `agentd` command line (clients/cli.py), the
Python client for other services (clients/python, distribution agentd-client, package
`agentd_client`), and the Go and Java gateway examples (clients/go, clients/java)."""
