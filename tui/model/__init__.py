"""The app's model, without textual: the workbench (a corpus and its trainer), sessions, the
quiz's rules, the finder, evaluation, samples, pacing, prefs and confinement. Unit-testable
without a screen."""
