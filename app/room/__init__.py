"""The live class: rooms, the teacher token, /teach, /join and "follow me"."""
