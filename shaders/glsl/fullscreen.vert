// A full-screen triangle from gl_VertexIndex, for building the pipelines of the fragment shaders.
// expect: model=Vertex interlock=none begin=0 end=0 begin_divergent=false end_divergent=false per_sample=false writes_memory=false accesses_memory=false color=false early=false sample_mask=false
#version 460

layout(location = 0) out vec4 outColor;

void main() {
    vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
    outColor = vec4(uv, 0.5, 0.5);
}
