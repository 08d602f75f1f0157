"""dplab web app (Panel UI). Numerics live in `dpcore`; this package only presents them."""
