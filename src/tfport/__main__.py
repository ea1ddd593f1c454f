import sys

from tfport.cli import main

sys.exit(main())
