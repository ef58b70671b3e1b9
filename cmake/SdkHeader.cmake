# cmake -DIN=<source header> -DOUT=<SDK header> -P SdkHeader.cmake: copies a header into the SDK's
# include tree with its in-tree include lines ("pkg/framework/x.h", "cmd/stowage/app/run.h")
# rewritten to the installed layout ("stowage/framework/x.h", "stowage/app/run.h").
file(READ ${IN} text)
string(REGEX REPLACE "#include \"pkg/" "#include \"stowage/" text "${text}")
string(REGEX REPLACE "#include \"cmd/stowage/app/" "#include \"stowage/app/" text "${text}")
file(WRITE ${OUT} "${text}")
