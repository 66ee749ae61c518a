"""Line mode (`--plain`): prompt-toolkit input (`input`), plain rendering of events
(`render`) and the read-eval loop that ties them to a session (`repl`)."""
