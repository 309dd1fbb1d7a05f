from logscope.entry import main

main()
