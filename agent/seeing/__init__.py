"""What a run shows its model of the files and images given with its task's input: the
first user message's parts (`inputs`)."""
