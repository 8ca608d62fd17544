"""The HTML run report: one self-contained page (inline SVG and a small script, nothing
fetched) over what a ``dataplane run`` or ``dataplane scenario`` measured.

    record.py    watches a running Network: port counters sampled over time, table hits
    wire.py      what it sees frame by frame: each port's frames (its utilisation window), flows at hosts
    collect.py   turns finished networks into the report's data (JSON), reads and writes it
    series.py    the time series of that data, over the window of the run's activity
    topology.py  draws the topology as SVG
    charts.py    SVG charts: time series with hover, bars, CDFs
    page.py      the HTML page from the data (page_assets.py: its inline CSS and script)
    scenario.py  reporting a built-in scenario: every network its command builds
"""
