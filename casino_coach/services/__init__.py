"""Long-running uses of the library: the play session of ``casino-coach play``, the JSON-lines engine
session, batch analysis into a results store. Imports every layer below; nothing imports it but the
CLI."""
