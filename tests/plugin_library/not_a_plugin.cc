// A shared library that is not a stowage plugin library (no ABI tag): the loader must refuse it.
extern "C" int not_a_stowage_plugin() { return 0; }
