
    export function render({ model }) {
      document.documentElement.lang = model.lang;
      model.on("lang", () => { document.documentElement.lang = model.lang; });
      return document.createElement("span");
    }
    