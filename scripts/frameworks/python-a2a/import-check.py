import python_a2a, flask  # noqa
