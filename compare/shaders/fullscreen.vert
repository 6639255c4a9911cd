#version 450
// The vertex stage `pops verify-isa --compile` pairs with the fragment shader: a triangle
// covering the viewport, no inputs or outputs. Compiled into fullscreen.vert.spv with
//   glslangValidator -V --target-env vulkan1.2 -o compare/shaders/fullscreen.vert.spv compare/shaders/fullscreen.vert
// (the test command checks that the committed module is what glslang makes of this source).
void main() {
    vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
