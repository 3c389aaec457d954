"""What a person's answer or message takes to reach a task: an approval's round trip
(`approvals`), a steer's delivery (`steering`)."""
