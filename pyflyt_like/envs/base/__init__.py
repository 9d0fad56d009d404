"""The PyFlyt-style base stack: the single-agent ``AviaryEnv`` and multi-agent ``MAAviaryEnv``,
what they share, and the vehicle facts (families, action spaces, attitude observation).
"""
