"""Files in and out of tasks (a wing of the client): `Part`, a file or image given with a
task's input, and the artifact methods (`artifacts`)."""
