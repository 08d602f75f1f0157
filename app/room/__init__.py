"""The live class (issue 20): rooms, the teacher token, /teach, /join and "follow me"."""
